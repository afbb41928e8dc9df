// OperationImpl: the ATB Operation interface for any operation Spec: validate, plan, dispatch, run.
#ifndef ATBX_OPS_OPERATION_IMPL_H
#define ATBX_OPS_OPERATION_IMPL_H

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "atbx/operation.h"
#include "core/parallel.h"
#include "core/str_cat.h"
#include "dispatch/kernel_registry.h"
#include "ops/call_guard.h"
#include "ops/call_validation.h"
#include "ops/pack_identity.h"

namespace atbx::ops {

// call.setup.backend_known: the Context's backend is one of Backend's values.
inline Status BackendKnown(Backend backend) {
    const int value = static_cast<int>(backend);
    if (value >= static_cast<int>(Backend::kAuto) && value <= static_cast<int>(Backend::kCpu))
        return Status::Ok();
    return Status(
        ERROR_INVALID_PARAM, "call.setup.backend_known",
        core::StrCat("the Context's backend must be 0 (auto), 1 (ref) or 2 (cpu), got unknown backend ",
                     value));
}

template <class Spec>
class OperationImpl final : public Operation {
  public:
    using Param = typename Spec::Param;
    using Plan = typename Spec::Plan;

    OperationImpl(const Param& param, Platform platform) : param_(param), platform_(platform) {}

    std::string GetName() const override { return Spec::kName; }

    uint32_t GetInputNum() const override {
        return static_cast<uint32_t>(Spec::MakeSubject(param_, platform_).inputSlots.size());
    }

    uint32_t GetOutputNum() const override {
        return static_cast<uint32_t>(Spec::MakeSubject(param_, platform_).outputSlots.size());
    }

    Status InferShape(const SVector<TensorDesc>& inTensorDescs,
                      SVector<TensorDesc>& outTensorDescs) const override {
        CallValidation<Spec> validation(param_, platform_);
        validation.SetDescs(inTensorDescs);
        if (Status st = FirstViolation(validation.Run(rules::Stage::kTensorCount, rules::Stage::kShape));
            !st.ok()) {
            return st;
        }
        outTensorDescs = Spec::InferOutputs(validation.subject());
        return Status::Ok();
    }

    Status Setup(const VariantPack& variantPack, uint64_t& workspaceSize, Context* context) override {
        const CallGuard guard(holder_);
        if (Status st = guard.status(); !st.ok()) return st;
        planned_.reset();
        const Context ctx = context != nullptr ? *context : Context{platform_, 0, Backend::kAuto};
        std::unique_ptr<Planned> planned;
        if (Status st = PlanCall(variantPack, ctx, &planned); !st.ok()) return st;
        Adopt(std::move(planned));
        workspaceSize = planned_->workspaceBytes;
        return Status::Ok();
    }

    Status Execute(const VariantPack& variantPack, uint8_t* workspace, uint64_t workspaceSize,
                   Context* context) override {
        const CallGuard guard(holder_);
        if (Status st = guard.status(); !st.ok()) return st;
        if (!planned_ || !planned_->pack->SameTensors(variantPack)) {
            return Status(
                ERROR_INVALID_PARAM, "call.execute.after_setup",
                "Execute needs a successful Setup with the same variant pack (tensors, shapes, pointers)");
        }
        if (!planned_->pack->SameHostValues(variantPack)) {
            // Host values changed since Setup: plan again with the new ones. A call they make invalid fails
            // and keeps the last plan, so the operation runs again once valid values are back.
            std::unique_ptr<Planned> replanned;
            if (Status st = PlanCall(variantPack, planned_->context, &replanned); !st.ok()) return st;
            Adopt(std::move(replanned));
        }
        // Device tensors may change between Setup and Execute: indices are checked again before any read,
        // by the validation Setup ran, whose storage (the subject's values) takes the same values again.
        CallValidation<Spec>& validation = planned_->validation;
        validation.SetPack(variantPack);
        if (Status st =
                FirstViolation(validation.Run(rules::Stage::kHostValues, rules::Stage::kDeviceValues));
            !st.ok()) {
            return st;
        }
        if (workspace != nullptr && workspaceSize < planned_->workspaceBytes) {
            return Status(ERROR_INVALID_PARAM, "call.execute.workspace_size",
                          core::StrCat("Execute got a workspace of ", workspaceSize,
                                       " bytes; Setup reported ", planned_->workspaceBytes));
        }
        // At most the threads Setup sized the workspace for.
        const int threads =
            std::min(core::ResolveThreads(context != nullptr ? context->threads : planned_->context.threads),
                     planned_->threads);
        void* scratch = workspace != nullptr ? static_cast<void*>(workspace) : ownWorkspace_.data();
        // A plan that holds values read from device tensors (ReshapeAndCache's slots) is rebuilt in place
        // from the values Execute sees, in the storage Setup's plan holds.
        if constexpr (requires { Spec::kPlanHoldsDeviceValues; }) {
            if constexpr (Spec::kPlanHoldsDeviceValues)
                Spec::RebuildPlan(validation.subject(), &planned_->plan, threads);
        }
        dispatch::RunKernel(*planned_->kernel, planned_->plan, threads, scratch);
        return Status::Ok();
    }

    // Read by the thread that ran Setup, like the plan itself.
    std::string KernelName() const override {
        return planned_ ? std::string(planned_->kernel->name) : std::string();
    }

  private:
    struct Planned {
        Planned(const Param& param, const Context& ctx) : validation(param, ctx.platform), context(ctx) {}
        CallValidation<Spec> validation;  // Setup's, run again by Execute
        Plan plan;
        std::optional<PackIdentity> pack;
        Context context;
        const dispatch::Kernel<Plan>* kernel = nullptr;
        int threads = 1;              // threads the workspace is sized for
        uint64_t workspaceBytes = 0;  // what Setup reported
    };

    // Makes the plan current, with a workspace of its size for an Execute that gets none: kept from plan to
    // plan and grown only, since a decode step calls Setup every time (its lengths change) and allocating and
    // clearing the step's hundreds of KiB again was about half of Setup's time.
    void Adopt(std::unique_ptr<Planned> planned) {
        planned_ = std::move(planned);
        if (ownWorkspace_.size() < planned_->workspaceBytes) ownWorkspace_.resize(planned_->workspaceBytes);
    }

    // Validates the whole call for the context and plans it, choosing its kernel.
    Status PlanCall(const VariantPack& variantPack, const Context& ctx, std::unique_ptr<Planned>* out) const {
        if (Status st = BackendKnown(ctx.backend); !st.ok()) return st;
        auto planned = std::make_unique<Planned>(param_, ctx);
        CallValidation<Spec>& validation = planned->validation;
        validation.SetPack(variantPack);
        if (Status st = FirstViolation(validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues));
            !st.ok()) {
            return st;
        }
        planned->plan = Spec::BuildPlan(validation.subject());
        planned->pack.emplace(variantPack, validation.subject().inputSlots);
        if (Status st = dispatch::SelectKernel(planned->plan, ctx, &planned->kernel); !st.ok()) return st;
        // The kernel's scratch is sized here for the context's threads (Adopt allocates it): Execute
        // allocates nothing.
        planned->threads = core::ResolveThreads(ctx.threads);
        planned->workspaceBytes = planned->kernel->workspaceBytes(planned->plan, planned->threads);
        *out = std::move(planned);
        return Status::Ok();
    }

    Param param_;
    Platform platform_;
    std::unique_ptr<Planned> planned_;
    std::vector<uint8_t> ownWorkspace_;  // used when Execute gets no workspace
    OperationHolder holder_{};
};

// CreateOperation's body for any Spec: the param rules of the platform, then the operation.
template <class Spec>
Status CreateOperationFor(const typename Spec::Param& param, Operation** operation, Platform platform) {
    if (operation == nullptr) {
        return Status(ERROR_INVALID_OPERATION_ADDR, "call.create.out_pointer",
                      "operation out-pointer is null");
    }
    *operation = nullptr;
    CallValidation<Spec> validation(param, platform);
    if (Status st = FirstViolation(validation.Run(rules::Stage::kParam, rules::Stage::kParam)); !st.ok())
        return st;
    *operation = new OperationImpl<Spec>(param, platform);
    return Status::Ok();
}

}  // namespace atbx::ops

#endif  // ATBX_OPS_OPERATION_IMPL_H
