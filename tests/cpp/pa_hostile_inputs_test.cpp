// Bad input never crashes and never reads out of bounds: every dim of every input of a range of valid calls,
// and every host value, set to extreme values gives violations, without overflow or an out-of-bounds read
// (the sanitizer build runs these too).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "support/pa_case_helpers.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

const char* const kCalls[] = {"a2.decode",           "a2.decode.bnsd",        "a2.spec.spec_mask",
                              "a2.compress.kvhead",  "a2.mla.combined",       "a2.dequant",
                              "a2.qkv.online_mask",  "a2.mask.alibi_4d",      "inference.norm",
                              "inference.mask_free", "training.alibi.shared", "a350.decode"};

class PaHostileInputTest : public testing::TestWithParam<const char*> {};

TEST_P(PaHostileInputTest, HugeDimsAreViolations) {
    const TestCall valid = PaCall(GetParam());
    for (size_t i = 0; i < valid.inputs.size(); ++i) {
        for (uint64_t d = 0; d < valid.inputs[i].desc.shape.dimNum; ++d) {
            for (int64_t value : {INT64_MAX, INT64_MAX / 16 + 1, int64_t{1} << 40}) {
                TestCall call = valid;
                call.inputs[i].desc.shape.dims[d] = value;
                EXPECT_FALSE(ViolatedRules(call).empty())
                    << valid.inputNames[i] << ".dims[" << d << "] = " << value << " passes";
            }
        }
    }
}

TEST_P(PaHostileInputTest, SmallDimsNeverCrash) {
    const TestCall valid = PaCall(GetParam());
    for (size_t i = 0; i < valid.inputs.size(); ++i) {
        for (uint64_t d = 0; d < valid.inputs[i].desc.shape.dimNum; ++d) {
            for (int64_t value : {1, 3, 17}) {
                TestCall call = valid;
                call.inputs[i].desc.shape.dims[d] = value;
                ViolatedRules(call);
            }
        }
    }
}

TEST_P(PaHostileInputTest, ExtremeHostValuesAreViolations) {
    const TestCall valid = PaCall(GetParam());
    for (const char* input : {"contextLens", "qSeqLen", "batchRunStatus"}) {
        if (valid.IndexOf(input) < 0) continue;
        const size_t count = valid.inputs[valid.IndexOf(input)].bytes.size() / sizeof(int32_t);
        for (size_t b = 0; b < count; ++b) {
            for (int32_t value : {INT32_MIN, -1, INT32_MAX}) {
                TestCall call = valid;
                SetInt32(call, input, b, value);
                EXPECT_FALSE(ViolatedRules(call).empty())
                    << input << "[" << b << "] = " << value << " passes";
            }
        }
    }
}

TEST_P(PaHostileInputTest, ExtremeBlockIdsAreViolations) {
    TestCall call = PaCall(GetParam());
    for (int32_t value : {INT32_MIN, -1, INT32_MAX}) {
        SetInt32(call, "blockTables", 0, value);
        EXPECT_FALSE(ViolatedRules(call).empty()) << "blockTables[0][0] = " << value << " passes";
    }
}

std::string CallName(const testing::TestParamInfo<const char*>& info) {
    std::string name = info.param;
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(Calls, PaHostileInputTest, testing::ValuesIn(kCalls), CallName);

}  // namespace
}  // namespace atbx::test
