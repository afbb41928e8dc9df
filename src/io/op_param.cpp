#include "io/op_param.h"

namespace atbx::io {

const char* OpName(const OpParam& param) {
    switch (param.index()) {
        case 0:
            return "PagedAttention";
        case 1:
            return "SelfAttention";
        default:
            return "ReshapeAndCache";
    }
}

}  // namespace atbx::io
