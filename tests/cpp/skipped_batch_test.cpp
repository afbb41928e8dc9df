// Dynamic batch as engines call it: a batch with batchRunStatus 0 may carry lengths, offsets and block ids
// that would break a rule in a running batch. Where ATB never reads such a batch, atbx waives the rule for
// it: the call is accepted on every backend and kernel, the running batches' outputs are the ones of the same
// call with valid values there, the skipped batch's output rows are zero and its cache is untouched. The same
// value in a running batch is rejected with the rule's id. Where ATB checks a value whatever the status, a
// skipped batch breaking it is rejected too. (docs/decisions.md, "Skipped batches".)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "dispatch/kernel_registry.h"
#include "plan/element.h"
#include "support/pa_calls.h"
#include "support/run_call.h"
#include "support/sa_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

using SaParam = infer::SelfAttentionParam;
using PaParam = infer::PagedAttentionParam;

// A valid call with the given batchRunStatus, and a change that puts a bad value into batch b.
struct SkipCase {
    std::string name;
    std::string rule;
    std::function<TestCall(const std::vector<int32_t>& status)> make;
    std::vector<int32_t> status;  // batches with 0 are skipped
    int64_t skipped;              // a batch with status 0
    int64_t running;              // a batch with status 1
    std::function<void(TestCall&, int64_t b)> breakBatch;
};

void PrintTo(const SkipCase& c, std::ostream* out) {
    *out << c.name;
}

// SelfAttention decode with the KV cache in the op and dynamic batch: 3 sequences, one query each, attending
// over 9, 30 and 2 keys; caches [B, S = 33, hidden].
TestCall SaDecoder(const std::vector<int32_t>& status) {
    SaParam p = FlashParam(SaParam::DECODER, SaParam::MASK_TYPE_UNDEFINED);
    p.batchRunStatusEnable = true;
    SaShape shape = DecoderShape();
    shape.batchRunStatus = status;
    return MakeSaCall(p, shape);
}

// SelfAttention dynamic-batch encoder with a per-batch NORM mask: queries of 5, 1 and 7 tokens over 5, 9 and
// 7 keys.
TestCall SaEncoder(const std::vector<int32_t>& status) {
    SaParam p = FlashParam(SaParam::ENCODER, SaParam::MASK_TYPE_NORM);
    p.batchRunStatusEnable = true;
    SaShape shape;
    shape.seqLen = {5, 1, 7};
    shape.kvSeqLen = {5, 9, 7};
    shape.mask = SaMaskForm::kPerBatch;
    shape.batchRunStatus = status;
    return MakeSaCall(p, shape);
}

// PagedAttention decode with batchRunStatus: contexts 17, 40, 33 and 9 (block size 16).
TestCall PaDecoder(const std::vector<int32_t>& status) {
    PaParam p;
    p.batchRunStatusEnable = true;
    PaShape shape;
    shape.contextLens = {17, 40, 33, 9};
    shape.batchRunStatus = status;
    return MakePaCall(p, shape);
}

std::function<void(TestCall&, int64_t)> SetValue(std::string input, int32_t value) {
    return [input, value](TestCall& c, int64_t b) { Elements<int32_t>(c.In(input))[b] = value; };
}

// Rules waived for a skipped batch.
std::vector<SkipCase> WaivedCases() {
    return {
        {"sa_decoder_token_offset_below_seq_len",
         "sa.host.token_offset_covers_seq_len",
         SaDecoder,
         {1, 0, 1},
         1,
         0,
         SetValue("tokenOffset", 0)},
        {"sa_decoder_token_offset_past_cache",
         "sa.host.token_offset_within_cache",
         SaDecoder,
         {1, 0, 1},
         1,
         2,
         SetValue("tokenOffset", 1000000)},
        {"pa_block_id_out_of_range",
         "pa.device.block_ids_in_range",
         PaDecoder,
         {1, 0, 1, 1},
         1,
         2,
         [](TestCall& c, int64_t b) {
             const int64_t width = c.In("blockTables").desc.shape.dims[1];
             Elements<int32_t>(c.In("blockTables"))[b * width + 1] = 1 << 30;
         }},
    };
}

// Rules ATB checks whatever the status: a skipped batch breaking them is rejected as well.
std::vector<SkipCase> KeptCases() {
    return {
        {"sa_decoder_negative_seq_len",
         "sa.host.seq_len_non_negative",
         SaDecoder,
         {1, 0, 1},
         1,
         0,
         SetValue("seqLen", -1)},
        {"sa_decoder_negative_token_offset",
         "sa.host.token_offset_non_negative",
         SaDecoder,
         {1, 0, 1},
         1,
         0,
         SetValue("tokenOffset", -1)},
        // Sequence b gets 9 keys for its 7 (or 5) query rows: neither q == kv nor q == 1.
        {"sa_encoder_query_not_key_length",
         "sa.host.packed_kernel_q_kv",
         SaEncoder,
         {1, 1, 0},
         2,
         0,
         SetValue("tokenOffset", 9)},
        {"sa_encoder_keys_past_mask",
         "sa.mask.covers_lengths",
         SaEncoder,
         {1, 0, 1},
         1,
         0,
         SetValue("tokenOffset", 12)},
        {"pa_negative_context",
         "pa.host.context_lens_non_negative",
         PaDecoder,
         {1, 0, 1, 1},
         1,
         0,
         SetValue("contextLens", -1)},
    };
}

bool IsSelfAttention(const TestCall& c) {
    return std::holds_alternative<SaParam>(c.param);
}

// Bytes of batch b of a [B, ...] tensor.
std::vector<uint8_t> BatchSlice(const io::HostTensor& t, int64_t b) {
    const size_t per = t.bytes.size() / static_cast<size_t>(t.desc.shape.dims[0]);
    return {t.bytes.begin() + static_cast<ptrdiff_t>(per * b),
            t.bytes.begin() + static_cast<ptrdiff_t>(per * (b + 1))};
}

// Output rows of SelfAttention batch b (A2 token rows: sum of the query lengths before it).
std::pair<int64_t, int64_t> SaOutputElements(TestCall& c, int64_t b) {
    const auto seqLen = Elements<int32_t>(c.In("seqLen"));
    int64_t rows = 0;
    int64_t first = 0;
    for (size_t i = 0; i < seqLen.size(); ++i) {
        if (static_cast<int64_t>(i) == b) first = rows;
        rows += seqLen[i];
    }
    const auto perRow = static_cast<int64_t>(ElementCount(c.outputs.at(0).desc)) / rows;
    return {first * perRow, seqLen[b] * perRow};
}

// Runs the call on one kernel: the reference, or a CPU path forced through ATBX_CPU_PATH.
RunResult RunOn(TestCall& call, const dispatch::AttentionKernel& kernel) {
    const std::string_view name = kernel.name;
    if (kernel.backend == Backend::kCpu)
        setenv("ATBX_CPU_PATH", std::string(name.substr(name.find(':') + 1)).c_str(), 1);
    RunResult result = Execute(call, kernel.backend);
    unsetenv("ATBX_CPU_PATH");
    return result;
}

class WaivedInSkippedBatch : public testing::TestWithParam<SkipCase> {};

TEST_P(WaivedInSkippedBatch, AcceptedOnEveryKernelAndNeverRead) {
    const SkipCase& c = GetParam();
    TestCall valid = c.make(c.status);
    ASSERT_TRUE(ViolatedRules(valid).empty()) << DescribeViolations(valid);
    ASSERT_TRUE(Execute(valid, Backend::kReference).status.ok());
    const std::vector<double> expected = ReferenceResult(valid);

    int ran = 0;
    for (const dispatch::AttentionKernel& kernel : dispatch::AttentionKernels()) {
        TestCall call = c.make(c.status);
        c.breakBatch(call, c.skipped);
        EXPECT_TRUE(ViolatedRules(call).empty()) << kernel.name << ": " << DescribeViolations(call);
        const bool sa = IsSelfAttention(call);
        const std::vector<uint8_t> cacheK =
            sa ? BatchSlice(call.In("cacheK"), c.skipped) : std::vector<uint8_t>{};
        const std::vector<uint8_t> cacheV =
            sa ? BatchSlice(call.In("cacheV"), c.skipped) : std::vector<uint8_t>{};
        const RunResult result = RunOn(call, kernel);
        if (result.status.rule() == "dispatch.cpu.unsupported") continue;  // a path this machine lacks
        ASSERT_TRUE(result.status.ok()) << kernel.name << ": " << result.status.ToString();
        ++ran;
        EXPECT_EQ(PrecisionFailure(call, expected, 1, int64_t{1} << 20), "") << kernel.name;
        if (!sa) continue;
        const io::HostTensor& out = call.outputs.at(0);
        const auto [first, count] = SaOutputElements(call, c.skipped);
        for (int64_t i = first; i < first + count; ++i) {
            ASSERT_EQ(plan::LoadElement(out.bytes.data(), out.desc.dtype, i), 0.0)
                << kernel.name << ": skipped batch output element " << i;
        }
        EXPECT_EQ(BatchSlice(call.In("cacheK"), c.skipped), cacheK)
            << kernel.name << ": skipped cacheK written";
        EXPECT_EQ(BatchSlice(call.In("cacheV"), c.skipped), cacheV)
            << kernel.name << ": skipped cacheV written";
    }
    EXPECT_GE(ran, 2) << "the reference and at least one CPU kernel run the call";
}

TEST_P(WaivedInSkippedBatch, RejectedInARunningBatchOnEveryKernel) {
    const SkipCase& c = GetParam();
    for (const dispatch::AttentionKernel& kernel : dispatch::AttentionKernels()) {
        TestCall call = c.make(c.status);
        c.breakBatch(call, c.running);
        const RunResult result = RunOn(call, kernel);
        EXPECT_EQ(result.status.rule(), c.rule) << kernel.name << ": " << result.status.ToString();
    }
}

class KeptInSkippedBatch : public testing::TestWithParam<SkipCase> {};

TEST_P(KeptInSkippedBatch, RejectedEvenWhenTheBatchIsSkipped) {
    const SkipCase& c = GetParam();
    for (const int64_t b : {c.skipped, c.running}) {
        TestCall call = c.make(c.status);
        c.breakBatch(call, b);
        const std::vector<std::string> violated = ViolatedRules(call);
        EXPECT_NE(std::find(violated.begin(), violated.end(), c.rule), violated.end())
            << "batch " << b << ": " << DescribeViolations(call);
        const std::optional<Status> api = ApiStatus(call);
        ASSERT_TRUE(api.has_value());
        EXPECT_FALSE(api->ok()) << "batch " << b;
    }
}

std::string Name(const testing::TestParamInfo<SkipCase>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Waived, WaivedInSkippedBatch, testing::ValuesIn(WaivedCases()), Name);
INSTANTIATE_TEST_SUITE_P(Kept, KeptInSkippedBatch, testing::ValuesIn(KeptCases()), Name);

// The case from the field: an engine's inactive decode slot with tokenOffset 0 and seqLen 1.
TEST(SkippedBatch, CheckExplainsTheWaiverInItsMessage) {
    TestCall call = SaDecoder({1, 1, 1});
    Elements<int32_t>(call.In("tokenOffset"))[1] = 0;
    const std::vector<rules::Violation> violations = Violations(call);
    ASSERT_EQ(violations.size(), 1u);
    EXPECT_NE(violations[0].message.find("batchRunStatus 0"), std::string::npos) << violations[0].message;
    Elements<int32_t>(call.In("batchRunStatus"))[1] = 0;
    EXPECT_TRUE(Violations(call).empty()) << DescribeViolations(call);
}

}  // namespace
}  // namespace atbx::test
