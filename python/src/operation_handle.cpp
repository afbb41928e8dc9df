#include "operation_handle.h"

#include <nanobind/nanobind.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "core/str_cat.h"
#include "io/npy.h"
#include "io/param_json.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"
#include "status_error.h"

namespace atbx::python {
namespace {

namespace nb = nanobind;
using core::StrCat;

std::atomic<int> runsInFlight{0};
std::atomic<int> maxRunsInFlight{0};

// Counts the Runs executing now and remembers the most seen at once.
class InFlight {
  public:
    InFlight() {
        const int now = ++runsInFlight;
        int seen = maxRunsInFlight.load();
        while (now > seen && !maxRunsInFlight.compare_exchange_weak(seen, now)) {
        }
    }
    ~InFlight() { --runsInFlight; }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
};

// Calls visit.template operator()<Spec>(param) with the operation spec of the param's type.
template <class Visitor>
auto WithSpec(const io::OpParam& param, Visitor&& visit) {
    return std::visit(
        [&](const auto& p) {
            using Spec = typename ops::SpecOf<std::decay_t<decltype(p)>>::type;
            return visit.template operator()<Spec>(p);
        },
        param);
}

io::OpParam ParseParamJson(const std::string& op, const std::string& paramJson) {
    nlohmann::json param;
    try {
        param = nlohmann::json::parse(paramJson);
    } catch (const nlohmann::json::exception& e) {
        throw io::IoError(StrCat("param is not valid JSON: ", e.what()));
    }
    return io::ParseParam(op, param);
}

Platform ParsePlatformName(const std::string& name) {
    const std::optional<Platform> platform = ParsePlatform(name);
    if (!platform) {
        throw nb::value_error(
            StrCat("unknown platform \"", name, "\" (atlas-a2, atlas-inference, atlas-training, atlas-350)")
                .c_str());
    }
    return *platform;
}

template <class Slots>
std::vector<std::string> SlotNames(const Slots& slots) {
    std::vector<std::string> names;
    for (const auto& slot : slots)
        names.emplace_back(slot.name);
    return names;
}

}  // namespace

OperationHandle::OperationHandle(const std::string& op, const std::string& paramJson,
                                 const std::string& platform)
    : op_(op), param_(ParseParamJson(op, paramJson)), platform_(ParsePlatformName(platform)) {
    inputNames_ = WithSpec(param_, [&]<class Spec>(const typename Spec::Param& p) {
        return SlotNames(Spec::MakeSubject(p, platform_).inputSlots);
    });
    Operation* raw = nullptr;
    Status st = std::visit([&](const auto& p) { return CreateOperation(p, &raw, platform_); }, param_);
    operation_.reset(raw);
    if (!st.ok()) throw StatusError(st);
}

std::string OperationHandle::ParamJson() const {
    return io::ParamToJson(param_).dump();
}

std::string OperationHandle::PlatformName() const {
    return atbx::PlatformName(platform_);
}

std::vector<std::string> OperationHandle::OutputNames() const {
    return WithSpec(param_, [&]<class Spec>(const typename Spec::Param& p) {
        return SlotNames(Spec::MakeSubject(p, platform_).outputSlots);
    });
}

std::vector<int> OperationHandle::OutputAliases() const {
    std::vector<int> aliases =
        WithSpec(param_, [&]<class Spec>(const typename Spec::Param& p) { return Spec::OutputAliases(p); });
    aliases.resize(OutputNames().size(), -1);
    return aliases;
}

std::vector<int> OperationHandle::InPlaceInputs() const {
    return WithSpec(param_,
                    [&]<class Spec>(const typename Spec::Param& p) { return Spec::InPlaceInputs(p); });
}

std::string OperationHandle::InputLabel(size_t index) const {
    return index < inputNames_.size() ? StrCat("input ", index, " (", inputNames_[index], ")")
                                      : StrCat("input ", index);
}

std::vector<DescArg> OperationHandle::InferShape(const std::vector<DescArg>& inputs) const {
    SVector<TensorDesc> in;
    for (size_t i = 0; i < inputs.size(); ++i)
        in.push_back(Describe(inputs[i], InputLabel(i)));
    SVector<TensorDesc> out;
    if (Status st = operation_->InferShape(in, out); !st.ok()) throw StatusError(st);
    std::vector<DescArg> result;
    for (const TensorDesc& desc : out)
        result.push_back(ToDescArg(desc));
    return result;
}

VariantPack OperationHandle::BindPack(const std::vector<ArrayArg>& inputs,
                                      const std::vector<ArrayArg>& outputs) const {
    VariantPack pack;
    for (size_t i = 0; i < inputs.size(); ++i)
        pack.inTensors.push_back(BindArray(inputs[i], InputLabel(i)));
    for (size_t i = 0; i < outputs.size(); ++i)
        pack.outTensors.push_back(BindArray(outputs[i], StrCat("output ", i)));
    return pack;
}

std::vector<ViolationTuple> OperationHandle::Check(const std::vector<ArrayArg>& inputs) const {
    VariantPack pack = BindPack(inputs, {});
    std::vector<rules::Violation> violations;
    std::vector<std::vector<uint8_t>> outputMemory;  // outputs the validation may look at; never returned
    {
        nb::gil_scoped_release release;
        violations = WithSpec(param_, [&]<class Spec>(const typename Spec::Param& p) {
            ops::CallValidation<Spec> descs(p, platform_);
            SVector<TensorDesc> inputDescs;
            for (const Tensor& t : pack.inTensors)
                inputDescs.push_back(t.desc);
            descs.SetDescs(inputDescs);
            if (auto v = descs.Run(rules::Stage::kParam, rules::Stage::kShape); !v.empty()) return v;
            const std::vector<TensorDesc> outputs = Spec::InferOutputs(descs.subject());
            const std::vector<int> aliases = Spec::OutputAliases(p);
            for (size_t i = 0; i < outputs.size(); ++i) {
                const int alias = i < aliases.size() ? aliases[i] : -1;
                Tensor out = alias >= 0 ? pack.inTensors[alias] : Tensor{};
                out.desc = outputs[i];
                if (alias < 0) {
                    outputMemory.emplace_back(ElementCount(out.desc) * DataTypeSize(out.desc.dtype));
                    out.deviceData = outputMemory.back().data();
                    out.dataSize = outputMemory.back().size();
                }
                pack.outTensors.push_back(out);
            }
            ops::CallValidation<Spec> call(p, platform_);
            call.SetPack(pack);
            return call.Run(rules::Stage::kParam, rules::Stage::kDeviceValues);
        });
    }
    std::vector<ViolationTuple> result;
    for (const rules::Violation& v : violations) {
        result.emplace_back(std::string(v.rule->id), ErrorTypeName(v.rule->code),
                            static_cast<int>(v.rule->code), v.message);
    }
    return result;
}

void OperationHandle::Run(const std::vector<ArrayArg>& inputs, const std::vector<ArrayArg>& outputs,
                          const std::string& backend, int threads) {
    const std::optional<Backend> parsedBackend = ParseBackend(backend);
    if (!parsedBackend) {
        throw nb::value_error(StrCat("unknown backend \"", backend, "\" (auto, ref, cpu)").c_str());
    }
    if (threads < 0) throw nb::value_error(StrCat("threads must be >= 0, got ", threads).c_str());
    const VariantPack pack = BindPack(inputs, outputs);
    Status st;
    {
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(mutex_);
        InFlight inFlight;
        Context context{platform_, threads, *parsedBackend};
        uint64_t workspaceSize = 0;
        st = operation_->Setup(pack, workspaceSize, &context);
        if (st.ok()) st = operation_->Execute(pack, nullptr, workspaceSize, &context);
        lastPointers_.first.clear();
        lastPointers_.second.clear();
        for (const Tensor& t : pack.inTensors)
            lastPointers_.first.push_back(reinterpret_cast<uintptr_t>(t.deviceData));
        for (const Tensor& t : pack.outTensors)
            lastPointers_.second.push_back(reinterpret_cast<uintptr_t>(t.deviceData));
        kernel_ = st.ok() ? operation_->KernelName() : std::string();
    }
    if (!st.ok()) throw StatusError(st);
}

std::string OperationHandle::KernelName() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kernel_;
}

std::pair<std::vector<uintptr_t>, std::vector<uintptr_t>> OperationHandle::LastPointers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lastPointers_;
}

int MaxRunsInFlight() {
    return maxRunsInFlight.load();
}

void ResetRunsInFlight() {
    maxRunsInFlight.store(runsInFlight.load());
}

}  // namespace atbx::python
