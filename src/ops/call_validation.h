// CallValidation: runs an operation's rules over a call (param, platform, variant pack or descriptors) and
// keeps what the rules established (the subject) for the planner. Used by Operation and by `atbx check`.
#ifndef ATBX_OPS_CALL_VALIDATION_H
#define ATBX_OPS_CALL_VALIDATION_H

#include <vector>

#include "atbx/types.h"
#include "rules/validator.h"

namespace atbx::ops {

// Spec is an operation's static description: Param, Subject, Rules(), MakeSubject(), InferOutputs(),
// LoadHostValues() (see ops/*/..._spec.h).
template <class Spec>
class CallValidation {
  public:
    using Subject = typename Spec::Subject;

    CallValidation(const typename Spec::Param& param, Platform platform)
        : subject_(Spec::MakeSubject(param, platform)) {}
    CallValidation(const CallValidation&) = delete;
    CallValidation& operator=(const CallValidation&) = delete;

    // Descriptors only (InferShape).
    void SetDescs(const SVector<TensorDesc>& inputs) {
        inputs_ = inputs;
        subject_.inputs = inputs_;
    }

    // A whole call (Setup, Execute, atbx check).
    void SetPack(const VariantPack& pack) {
        inputs_.clear();
        outputs_.clear();
        for (const Tensor& t : pack.inTensors)
            inputs_.push_back(t.desc);
        for (const Tensor& t : pack.outTensors)
            outputs_.push_back(t.desc);
        subject_.inputs = inputs_;
        subject_.outputs = outputs_;
        subject_.pack = &pack;
    }

    // Runs stages [first, last]; returns the violations of the first failing stage.
    std::vector<rules::Violation> Run(rules::Stage first, rules::Stage last) {
        return rules::RunStages(first, last, Spec::Rules(), subject_, [](rules::Stage stage, Subject& s) {
            if (stage == rules::Stage::kOutput) s.inferredOutputs = Spec::InferOutputs(s);
            if (stage == rules::Stage::kHostValues) Spec::LoadHostValues(s);
            if constexpr (requires { Spec::LoadDeviceValues(s); }) {
                if (stage == rules::Stage::kDeviceValues) Spec::LoadDeviceValues(s);
            }
        });
    }

    const Subject& subject() const { return subject_; }

  private:
    Subject subject_;
    std::vector<TensorDesc> inputs_;
    std::vector<TensorDesc> outputs_;
};

inline Status FirstViolation(const std::vector<rules::Violation>& violations) {
    return violations.empty() ? Status::Ok() : violations.front().ToStatus();
}

}  // namespace atbx::ops

#endif  // ATBX_OPS_CALL_VALIDATION_H
