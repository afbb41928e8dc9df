#include "io/case_runner.h"

#include <chrono>
#include <memory>

#include "atbx/operation.h"
#include "core/str_cat.h"
#include "io/npy.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"

namespace atbx::io {
namespace {

using core::StrCat;

// The tensors of a call and the memory behind them. Inputs are copies of the case's (ops may update them in
// place); outputs either own zeroed memory or alias the input they update.
class CallMemory {
  public:
    explicit CallMemory(const std::vector<HostTensor>& inputs) : inputs_(inputs) {
        for (HostTensor& t : inputs_)
            pack_.inTensors.push_back(Bind(t));
    }

    void AddOutputs(const std::vector<TensorDesc>& descs, const std::vector<int>& aliases) {
        for (size_t i = 0; i < descs.size(); ++i) {
            const int alias = i < aliases.size() ? aliases[i] : -1;
            if (alias >= 0) {
                Tensor tensor = pack_.inTensors[alias];
                tensor.desc = descs[i];
                pack_.outTensors.push_back(tensor);
            } else {
                outputs_.push_back(std::make_unique<HostTensor>());
                outputs_.back()->desc = descs[i];
                outputs_.back()->bytes.assign(ElementCount(descs[i]) * DataTypeSize(descs[i].dtype), 0);
                pack_.outTensors.push_back(Bind(*outputs_.back()));
            }
        }
    }

    const VariantPack& pack() const { return pack_; }
    const HostTensor& input(size_t i) const { return inputs_[i]; }

    HostTensor OutputCopy(size_t i) const {
        const Tensor& t = pack_.outTensors[i];
        const auto* begin = static_cast<const uint8_t*>(t.deviceData);
        return {t.desc,
                std::vector<uint8_t>(begin, begin + ElementCount(t.desc) * DataTypeSize(t.desc.dtype))};
    }

  private:
    static Tensor Bind(HostTensor& t) {
        Tensor tensor;
        tensor.desc = t.desc;
        tensor.deviceData = t.bytes.data();
        tensor.hostData = t.bytes.data();
        tensor.dataSize = t.bytes.size();
        return tensor;
    }

    std::vector<HostTensor> inputs_;
    std::vector<std::unique_ptr<HostTensor>> outputs_;
    VariantPack pack_;
};

CaseOutcome Fail(std::vector<rules::Violation> violations) {
    CaseOutcome outcome;
    outcome.status = ops::FirstViolation(violations);
    outcome.violations = std::move(violations);
    return outcome;
}

// Validates the whole case; on success `memory` holds the call with its outputs.
template <class Spec>
CaseOutcome Validate(const typename Spec::Param& param, const CaseFile& c,
                     std::unique_ptr<CallMemory>* memory) {
    ops::CallValidation<Spec> params(param, c.platform);
    if (auto v = params.Run(rules::Stage::kParam, rules::Stage::kParam); !v.empty())
        return Fail(std::move(v));

    *memory = std::make_unique<CallMemory>(c.inputs);
    ops::CallValidation<Spec> descs(param, c.platform);
    SVector<TensorDesc> inputDescs;
    for (const HostTensor& t : c.inputs)
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
    return {};
}

template <class Spec>
CaseOutcome Check(const typename Spec::Param& param, const CaseFile& c) {
    std::unique_ptr<CallMemory> memory;
    return Validate<Spec>(param, c, &memory);
}

template <class Spec>
void CheckOutputCount(const typename Spec::Param& param, const CaseFile& c, size_t atbOutputs) {
    const size_t expected = atbOutputs + Spec::InPlaceInputs(param).size();
    if (c.outputFiles.size() != expected) {
        throw IoError(StrCat(c.path.string(), ": \"outputs\" lists ", c.outputFiles.size(), " files, ",
                             OpName(c.param), " with this param produces ", expected,
                             " (ATB outputs, then caches updated in place)"));
    }
}

template <class Spec>
CaseOutcome Run(const typename Spec::Param& param, const CaseFile& c, Backend backend, int threads) {
    std::unique_ptr<CallMemory> memory;
    if (CaseOutcome checked = Validate<Spec>(param, c, &memory); !checked.status.ok()) return checked;
    const VariantPack& pack = memory->pack();
    CheckOutputCount<Spec>(param, c, pack.outTensors.size());

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
    for (size_t i = 0; i < pack.outTensors.size(); ++i)
        outcome.outputs.push_back(memory->OutputCopy(i));
    for (int index : Spec::InPlaceInputs(param)) {
        const Tensor& t = pack.inTensors[index];
        const auto* begin = static_cast<const uint8_t*>(t.deviceData);
        outcome.outputs.push_back({t.desc, std::vector<uint8_t>(begin, begin + t.dataSize)});
    }
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

void WriteOutputs(const CaseFile& c, const std::vector<HostTensor>& outputs,
                  const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> temporaries;
    try {
        std::filesystem::create_directories(dir);
        for (size_t i = 0; i < outputs.size() && i < c.outputFiles.size(); ++i) {
            const std::filesystem::path target = dir / c.outputFiles[i];
            std::filesystem::path temporary = target;
            temporary += ".partial";
            temporaries.push_back(temporary);
            std::vector<int64_t> shape(outputs[i].desc.shape.dims,
                                       outputs[i].desc.shape.dims + outputs[i].desc.shape.dimNum);
            WriteNpy(temporary, NpyDescr(outputs[i].desc.dtype), shape, outputs[i].bytes);
        }
        for (size_t i = 0; i < temporaries.size(); ++i)
            std::filesystem::rename(temporaries[i], dir / c.outputFiles[i]);
    } catch (const std::exception& e) {
        std::error_code ignored;
        for (const auto& temporary : temporaries)
            std::filesystem::remove(temporary, ignored);
        throw IoError(StrCat("cannot write outputs: ", e.what()));
    }
}

}  // namespace atbx::io
