// SelfAttention rule cases: for every rule, a valid call and the change that breaks only that rule.
#include "support/rule_case.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

using Param = infer::SelfAttentionParam;

TestCall Encoder() {
    return MakeSaCall(PaEncoderParam());
}

template <class F>
std::function<void(TestCall&)> WithParam(F change) {
    return [change](TestCall& c) { change(c.Param<Param>()); };
}

}  // namespace

std::vector<RuleCase> SelfAttentionRuleCases() {
    return {
        {"sa.param.rsv_zero", ERROR_INVALID_PARAM, "", Encoder, WithParam([](Param& p) { p.rsv[0] = 7; })},
        {"sa.param.head_num_positive", ERROR_INVALID_PARAM, "", Encoder,
         WithParam([](Param& p) { p.headNum = 0; })},
        {"sa.rank.query", ERROR_INVALID_TENSOR_DIM_NUM, "", Encoder,
         [](TestCall& c) { c.In("query").desc.shape.dimNum = 1; }},
        {"sa.host.seq_len_non_negative", ERROR_INVALID_PARAM, "", Encoder,
         [](TestCall& c) { Elements<int32_t>(c.In("seqLen"))[0] = -3; }},
    };
}

}  // namespace atbx::test
