// ReshapeAndCache rule cases: for every rule, a valid call and the change that breaks only that rule.
#include "support/rac_calls.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;

TestCall Nd() {
    return MakeRacCall({});
}

}  // namespace

std::vector<RuleCase> ReshapeAndCacheRuleCases() {
    return {
        {"rac.param.rsv_zero", ERROR_INVALID_PARAM, "", Nd,
         [](TestCall& c) { c.Param<Param>().rsv[15] = 1; }},
        {"rac.rank.slot_mapping", ERROR_INVALID_TENSOR_DIM_NUM, "", Nd,
         [](TestCall& c) {
             c.In("slotMapping").desc.shape.dims[c.In("slotMapping").desc.shape.dimNum++] = 1;
         }},
    };
}

}  // namespace atbx::test
