#include "io/case_runner.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>

#include "atbx/operation.h"
#include "core/str_cat.h"
#include "io/npy.h"
#include "io/user_text.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"

namespace atbx::io {
namespace {

using core::StrCat;

// The tensors of a call and the memory behind them. Inputs the op updates in place get owned copies; the
// others point at the case's (mapped, read-only) bytes, so a large cache the call only reads is never copied
// and only the pages the call touches are read. Outputs own zeroed memory or alias the input they update.
class CallMemory {
  public:
    CallMemory(const std::vector<CaseInput>& inputs, const std::vector<int>& written)
        : owned_(inputs.size()), taken_(inputs.size(), false) {
        for (size_t i = 0; i < inputs.size(); ++i) {
            const std::span<const uint8_t> bytes = inputs[i].bytes.span();
            void* data = const_cast<uint8_t*>(bytes.data());  // never written: not in `written`
            if (std::find(written.begin(), written.end(), static_cast<int>(i)) != written.end()) {
                owned_[i].assign(bytes.begin(), bytes.end());
                data = owned_[i].data();
            }
            pack_.inTensors.push_back(Tensor{inputs[i].desc, data, data, bytes.size()});
        }
    }

    void AddOutputs(const std::vector<TensorDesc>& descs, const std::vector<int>& aliases) {
        for (size_t i = 0; i < descs.size(); ++i) {
            const int alias = i < aliases.size() ? aliases[i] : -1;
            outputSources_.push_back(alias);
            if (alias >= 0) {
                Tensor tensor = pack_.inTensors[alias];
                tensor.desc = descs[i];
                pack_.outTensors.push_back(tensor);
            } else {
                outputs_.emplace_back(ElementCount(descs[i]) * DataTypeSize(descs[i].dtype), 0);
                std::vector<uint8_t>& buffer = outputs_.back();
                pack_.outTensors.push_back(Tensor{descs[i], buffer.data(), buffer.data(), buffer.size()});
            }
        }
    }

    const VariantPack& pack() const { return pack_; }

    // The ATB outputs, then the inputs in `inPlace`; moves the buffers out, so call it once, last.
    std::vector<HostTensor> TakeOutputs(const std::vector<int>& inPlace) {
        std::vector<HostTensor> taken;
        size_t owned = 0;
        for (size_t i = 0; i < pack_.outTensors.size(); ++i) {
            const int alias = outputSources_[i];
            taken.push_back(
                {pack_.outTensors[i].desc, alias >= 0 ? TakeInput(alias) : std::move(outputs_[owned++])});
        }
        for (int index : inPlace)
            taken.push_back({pack_.inTensors[index].desc, TakeInput(index)});
        return taken;
    }

  private:
    std::vector<uint8_t> TakeInput(int index) {
        if (taken_[index]) return owned_[index];
        taken_[index] = true;
        return std::move(owned_[index]);
    }

    std::vector<std::vector<uint8_t>> owned_;  // copies of the inputs updated in place
    std::vector<bool> taken_;
    std::deque<std::vector<uint8_t>> outputs_;  // outputs that alias no input (a deque: buffers stay put)
    std::vector<int> outputSources_;            // per output: the input it aliases, or -1
    VariantPack pack_;
};

// The inputs a call with this param writes: those its outputs alias, and those updated in place.
template <class Spec>
std::vector<int> WrittenInputs(const typename Spec::Param& param) {
    std::vector<int> written = Spec::InPlaceInputs(param);
    for (int alias : Spec::OutputAliases(param)) {
        if (alias >= 0) written.push_back(alias);
    }
    return written;
}

CaseOutcome Fail(std::vector<rules::Violation> violations) {
    CaseOutcome outcome;
    outcome.status = ops::FirstViolation(violations);
    outcome.violations = std::move(violations);
    return outcome;
}

template <class Spec>
void CheckOutputCount(const typename Spec::Param& param, const CaseFile& c, size_t atbOutputs) {
    const size_t expected = atbOutputs + Spec::InPlaceInputs(param).size();
    if (c.outputFiles.size() != expected) {
        throw IoError(StrCat(Printable(c.path.string(), 300), ": \"outputs\" lists ", c.outputFiles.size(),
                             " files, ", OpName(c.param), " with this param produces ", expected,
                             " (ATB outputs, then caches updated in place)"));
    }
}

// Validates the whole case, then the number of output files it lists; on success `memory` holds the call with
// its outputs. `written`: the inputs to copy because Execute will update them (none when only validating).
template <class Spec>
CaseOutcome Validate(const typename Spec::Param& param, const CaseFile& c, const std::vector<int>& written,
                     std::unique_ptr<CallMemory>* memory) {
    ops::CallValidation<Spec> params(param, c.platform);
    if (auto v = params.Run(rules::Stage::kParam, rules::Stage::kParam); !v.empty())
        return Fail(std::move(v));

    *memory = std::make_unique<CallMemory>(c.inputs, written);
    ops::CallValidation<Spec> descs(param, c.platform);
    SVector<TensorDesc> inputDescs;
    for (const CaseInput& t : c.inputs)
        inputDescs.push_back(t.desc);
    descs.SetDescs(inputDescs);
    if (auto v = descs.Run(rules::Stage::kTensorCount, rules::Stage::kShape); !v.empty())
        return Fail(std::move(v));
    (*memory)->AddOutputs(Spec::InferOutputs(descs.subject()), Spec::OutputAliases(param));

    ops::CallValidation<Spec> call(param, c.platform);
    call.SetPack((*memory)->pack());
    if (auto v = call.Run(rules::Stage::kTensorCount, rules::Stage::kDeviceValues); !v.empty()) {
        return Fail(std::move(v));
    }
    CheckOutputCount<Spec>(param, c, (*memory)->pack().outTensors.size());
    return {};
}

template <class Spec>
CaseOutcome Check(const typename Spec::Param& param, const CaseFile& c) {
    std::unique_ptr<CallMemory> memory;
    return Validate<Spec>(param, c, {}, &memory);
}

template <class Spec>
CaseOutcome Run(const typename Spec::Param& param, const CaseFile& c, Backend backend, int threads) {
    std::unique_ptr<CallMemory> memory;
    if (CaseOutcome checked = Validate<Spec>(param, c, WrittenInputs<Spec>(param), &memory);
        !checked.status.ok()) {
        return checked;
    }
    const VariantPack& pack = memory->pack();

    Operation* raw = nullptr;
    CaseOutcome outcome;
    outcome.status = CreateOperation(param, &raw, c.platform);
    std::unique_ptr<Operation> op(raw);
    if (!outcome.status.ok()) return outcome;
    Context context{c.platform, threads, backend};
    uint64_t workspaceSize = 0;
    outcome.status = op->Setup(pack, workspaceSize, &context);
    if (!outcome.status.ok()) return outcome;
    const auto start = std::chrono::steady_clock::now();
    outcome.status = op->Execute(pack, nullptr, workspaceSize, &context);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!outcome.status.ok()) return outcome;
    outcome.kernel = op->KernelName();
    outcome.outputs = memory->TakeOutputs(Spec::InPlaceInputs(param));
    return outcome;
}

template <class Visitor>
CaseOutcome WithSpec(const CaseFile& c, Visitor&& visit) {
    return std::visit(
        [&](const auto& param) -> CaseOutcome {
            using P = std::decay_t<decltype(param)>;
            if constexpr (ops::HasSpec<P>) {
                if constexpr (ops::Executable<typename ops::SpecOf<P>::type>) {
                    return visit.template operator()<typename ops::SpecOf<P>::type>(param);
                } else {
                    throw IoError(StrCat(OpName(c.param), " is not implemented yet"));
                }
            } else {
                throw IoError(StrCat(OpName(c.param), " is not implemented yet"));
            }
        },
        c.param);
}

}  // namespace

CaseOutcome CheckCase(const CaseFile& c) {
    return WithSpec(c, [&]<class Spec>(const typename Spec::Param& param) { return Check<Spec>(param, c); });
}

CaseOutcome RunCase(const CaseFile& c, Backend backend, int threads) {
    return WithSpec(c, [&]<class Spec>(const typename Spec::Param& param) {
        return Run<Spec>(param, c, backend, threads);
    });
}

}  // namespace atbx::io
