#include "atbx/context.h"

#include <new>

namespace atbx {

const char* BackendName(Backend backend) {
    switch (backend) {
        case Backend::kAuto:
            return "auto";
        case Backend::kReference:
            return "ref";
        case Backend::kCpu:
            return "cpu";
    }
    return "unknown";
}

std::optional<Backend> ParseBackend(std::string_view name) {
    for (Backend backend : {Backend::kAuto, Backend::kReference, Backend::kCpu}) {
        if (name == BackendName(backend)) return backend;
    }
    return std::nullopt;
}

Status CreateContext(Context** context) {
    if (context == nullptr) return Status(ERROR_INVALID_CONTEXT_ADDR, "", "context out-pointer is null");
    *context = new (std::nothrow) Context();
    if (*context == nullptr) return Status(ERROR_OUT_OF_HOST_MEMORY, "", "cannot allocate a Context");
    return Status::Ok();
}

Status DestroyContext(Context* context) {
    delete context;
    return Status::Ok();
}

}  // namespace atbx
