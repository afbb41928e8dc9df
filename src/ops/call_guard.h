// CallGuard: one Operation is used by one thread at a time (ATB's contract: one operation per stream). Setup
// and Execute hold the operation for the length of the call; a call from a second thread while the first
// still holds it fails with rule call.concurrent_use instead of racing on the plan. The thread that holds it
// may enter again (Execute plans again through Setup when host values changed).
#ifndef ATBX_OPS_CALL_GUARD_H
#define ATBX_OPS_CALL_GUARD_H

#include <atomic>
#include <thread>

#include "atbx/status.h"

namespace atbx::ops {

// The thread inside an operation's Setup or Execute; a default id when none is.
using OperationHolder = std::atomic<std::thread::id>;

class CallGuard {
  public:
    explicit CallGuard(OperationHolder& holder) : holder_(holder) {
        std::thread::id free{};
        const std::thread::id self = std::this_thread::get_id();
        if (holder_.compare_exchange_strong(free, self, std::memory_order_acquire)) {
            releases_ = true;
        } else {
            held_elsewhere_ = free != self;
        }
    }
    ~CallGuard() {
        if (releases_) holder_.store(std::thread::id{}, std::memory_order_release);
    }
    CallGuard(const CallGuard&) = delete;
    CallGuard& operator=(const CallGuard&) = delete;

    // Ok when this thread holds the operation; else the error the call returns.
    Status status() const {
        if (!held_elsewhere_) return Status::Ok();
        return Status(
            ERROR_INVALID_OPERATION_ADDR, "call.concurrent_use",
            "this operation is in Setup or Execute on another thread; one operation serves one thread "
            "at a time (create one operation per thread or stream), got a concurrent call");
    }

  private:
    OperationHolder& holder_;
    bool releases_ = false;
    bool held_elsewhere_ = false;
};

}  // namespace atbx::ops

#endif  // ATBX_OPS_CALL_GUARD_H
