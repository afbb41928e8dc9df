#include "rules/common_rules.h"

#include <array>

namespace atbx::rules {
namespace {

using S = CallSubject;

constexpr std::string_view kAtbTypes = "ATB include/atb/types.h (Dims, Tensor)";

Verdict PlatformKnown(const S& s) {
    const int value = static_cast<int>(s.platform);
    return Require(
        value >= 0 && value < kPlatformCount,
        "platform must be one of the four profiles (0 atlas-a2, 1 atlas-inference, 2 atlas-training, "
        "3 atlas-350), got unknown platform ",
        value);
}

Verdict InputCount(const S& s) {
    return Require(s.inputs.size() == s.inputSlots.size(), "expected ", s.inputSlots.size(),
                   " input tensors for this param, got ", s.inputs.size());
}

Verdict OutputCount(const S& s) {
    if (s.pack == nullptr) return Pass();  // InferShape: outputs are what it returns
    return Require(s.outputs.size() == s.outputSlots.size(), "expected ", s.outputSlots.size(),
                   " output tensors, got ", s.outputs.size());
}

Verdict CheckRanks(std::span<const TensorDesc> descs, std::string (S::*label)(size_t) const, const S& s) {
    for (size_t i = 0; i < descs.size(); ++i) {
        const uint64_t rank = descs[i].shape.dimNum;
        if (rank == 0 || rank > MAX_DIM) {
            return Fail((s.*label)(i), " must have 1 to ", MAX_DIM, " dims, got ", rank);
        }
    }
    return Pass();
}

Verdict RankRange(const S& s) {
    if (auto v = CheckRanks(s.inputs, &S::InputLabel, s)) return v;
    return CheckRanks(s.outputs, &S::OutputLabel, s);
}

Verdict CheckDims(std::span<const TensorDesc> descs, std::string (S::*label)(size_t) const, const S& s) {
    for (size_t i = 0; i < descs.size(); ++i) {
        if (descs[i].shape.dimNum > MAX_DIM) continue;  // call.rank.range reports it
        for (uint64_t d = 0; d < descs[i].shape.dimNum; ++d) {
            if (descs[i].shape.dims[d] <= 0) {
                return Fail((s.*label)(i), " dim ", d, " must be > 0, got shape ",
                            ShapeToString(descs[i].shape));
            }
        }
    }
    return Pass();
}

Verdict DimsPositive(const S& s) {
    if (auto v = CheckDims(s.inputs, &S::InputLabel, s)) return v;
    return CheckDims(s.outputs, &S::OutputLabel, s);
}

Verdict OutputDtype(const S& s) {
    for (size_t i = 0; i < s.outputs.size() && i < s.inferredOutputs.size(); ++i) {
        const TensorDesc& given = s.outputs[i];
        const TensorDesc& want = s.inferredOutputs[i];
        if (given.dtype != want.dtype || given.format != want.format) {
            return Fail(s.OutputLabel(i), " must be ", DataTypeName(want.dtype), ' ', FormatName(want.format),
                        ", got ", DataTypeName(given.dtype), ' ', FormatName(given.format));
        }
    }
    return Pass();
}

Verdict OutputShape(const S& s) {
    for (size_t i = 0; i < s.outputs.size() && i < s.inferredOutputs.size(); ++i) {
        const Dims& given = s.outputs[i].shape;
        const Dims& want = s.inferredOutputs[i].shape;
        bool same = given.dimNum == want.dimNum;
        for (uint64_t d = 0; same && d < given.dimNum; ++d)
            same = given.dims[d] == want.dims[d];
        if (!same) {
            return Fail(s.OutputLabel(i), " must have shape ", ShapeToString(want), ", got ",
                        ShapeToString(given));
        }
    }
    return Pass();
}

Verdict DataPresent(const S& s) {
    for (size_t i = 0; i < s.inputs.size(); ++i) {
        if (s.InputData(i) == nullptr) return Fail(s.InputLabel(i), " has no data pointer");
    }
    for (size_t i = 0; i < s.outputs.size(); ++i) {
        if (s.OutputData(i) == nullptr) return Fail(s.OutputLabel(i), " has no data pointer");
    }
    return Pass();
}

Verdict CheckSizes(const SVector<Tensor>& tensors, std::string (S::*label)(size_t) const, const S& s) {
    for (size_t i = 0; i < tensors.size(); ++i) {
        const uint64_t count = ElementCount(tensors[i].desc);
        const uint64_t size = DataTypeSize(tensors[i].desc.dtype);
        const bool overflow = size != 0 && count > UINT64_MAX / size;
        if (overflow || tensors[i].dataSize < count * size) {
            return Fail((s.*label)(i), " of shape ", ShapeToString(tensors[i].desc.shape), " and dtype ",
                        DataTypeName(tensors[i].desc.dtype), " needs ", overflow ? UINT64_MAX : count * size,
                        " bytes, dataSize is ", tensors[i].dataSize);
        }
    }
    return Pass();
}

Verdict DataSize(const S& s) {
    if (auto v = CheckSizes(s.pack->inTensors, &S::InputLabel, s)) return v;
    return CheckSizes(s.pack->outTensors, &S::OutputLabel, s);
}

// Runs before every other rule: every rule's profile set is looked up by the platform.
const Rule<S> kPlatformRule = {
    {"call.param.platform_known", "*", Stage::kParam, ProfileSet::All(), ERROR_INVALID_PARAM,
     "the platform (CreateOperation's, the Context's) is one of "
     "the four profiles",
     "atbx include/atbx/platform.h"},
    PlatformKnown};

const std::array<Rule<S>, 8> kRules = {{
    {{"call.count.inputs", "*", Stage::kTensorCount, ProfileSet::All(), ERROR_INVALID_IN_TENSOR_NUM,
      "the number of input tensors equals GetInputNum() for the param", "ATB framework: input count check"},
     InputCount},
    {{"call.count.outputs", "*", Stage::kTensorCount, ProfileSet::All(), ERROR_INVALID_TENSOR_NUM,
      "the number of output tensors equals GetOutputNum()", "ATB framework: output count check"},
     OutputCount},
    {{"call.rank.range", "*", Stage::kRank, ProfileSet::All(), ERROR_INVALID_TENSOR_DIM_NUM,
      "every tensor has 1 to 8 dims", kAtbTypes},
     RankRange},
    {{"call.rank.dims_positive", "*", Stage::kRank, ProfileSet::All(), ERROR_INVALID_TENSOR_DIM,
      "every dim of every tensor is > 0", kAtbTypes},
     DimsPositive},
    {{"call.output.dtype_format", "*", Stage::kOutput, ProfileSet::All(), ERROR_INVALID_TENSOR_INI_MATCH,
      "each output's dtype and format equal the ones InferShape gives",
      "ATB framework: Setup output ini check"},
     OutputDtype},
    {{"call.output.shape", "*", Stage::kOutput, ProfileSet::All(), ERROR_INVALID_TENSOR_DIM,
      "each output's shape equals the one InferShape gives", "ATB framework: Setup output shape check"},
     OutputShape},
    {{"call.memory.data_present", "*", Stage::kMemory, ProfileSet::All(), ERROR_INVALID_TENSOR_ADDR,
      "every tensor has a data pointer (host tensors: hostData or deviceData)", kAtbTypes},
     DataPresent},
    {{"call.memory.data_size", "*", Stage::kMemory, ProfileSet::All(), ERROR_INVALID_TENSOR_SIZE,
      "every tensor's dataSize covers its shape times its dtype size", kAtbTypes},
     DataSize},
}};

}  // namespace

std::span<const Rule<CallSubject>> CommonRules() {
    return kRules;
}

const Rule<CallSubject>& PlatformRule() {
    return kPlatformRule;
}

}  // namespace atbx::rules
