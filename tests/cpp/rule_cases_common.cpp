// Cases for the rules every operation shares, on PagedAttention calls.
#include "support/pa_calls.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

TestCall Decode() {
    return MakePaCall({});
}

}  // namespace

std::vector<RuleCase> CommonRuleCases() {
    return {
        {"call.param.platform_known", ERROR_INVALID_PARAM, "four", Decode,
         [](TestCall& c) { c.platform = static_cast<Platform>(kPlatformCount); }},
        {"call.param.platform_known", ERROR_INVALID_PARAM, "negative", Decode,
         [](TestCall& c) { c.platform = static_cast<Platform>(-1); }},
        {"call.param.platform_known", ERROR_INVALID_PARAM, "shift_width", Decode,
         [](TestCall& c) { c.platform = static_cast<Platform>(40); }},
        {"call.count.inputs", ERROR_INVALID_IN_TENSOR_NUM, "", Decode,
         [](TestCall& c) { c.inputs.pop_back(); }},
        {"call.count.outputs", ERROR_INVALID_TENSOR_NUM, "", Decode,
         [](TestCall& c) { c.outputs.push_back(c.outputs.front()); }},
        {"call.rank.range", ERROR_INVALID_TENSOR_DIM_NUM, "zero", Decode,
         [](TestCall& c) { c.outputs[0].desc.shape.dimNum = 0; }},
        {"call.rank.range", ERROR_INVALID_TENSOR_DIM_NUM, "nine", Decode,
         [](TestCall& c) { c.outputs[0].desc.shape.dimNum = 9; }},
        {"call.rank.dims_positive", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) { c.outputs[0].desc.shape.dims[1] = -1; }},
        {"call.output.dtype_format", ERROR_INVALID_TENSOR_INI_MATCH, "int32", Decode,
         [](TestCall& c) { c.outputs[0].desc.dtype = ACL_INT32; }},
        {"call.output.shape", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) { c.outputs[0].desc.shape.dims[0] += 1; }},
        {"call.memory.data_present", ERROR_INVALID_TENSOR_ADDR, "", Decode,
         [](TestCall& c) { c.detachedInputs.push_back("keyCache"); }},
        {"call.memory.data_size", ERROR_INVALID_TENSOR_SIZE, "", Decode,
         [](TestCall& c) { c.In("valueCache").bytes.resize(c.In("valueCache").bytes.size() - 2); }},
    };
}

}  // namespace atbx::test
