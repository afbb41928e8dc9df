// The catalogue of valid PagedAttention calls: every call passes every rule of its profile, through
// validation and through CreateOperation and InferShape; and what the rules deliberately leave alone (entries
// of skipped batches, block-table entries past a context) does not make a call invalid.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "atbx/operation.h"
#include "support/pa_case_helpers.h"
#include "support/run_call.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

class PaValidCallTest : public testing::TestWithParam<PaValidCall> {};

TEST_P(PaValidCallTest, PassesEveryRule) {
    TestCall call = GetParam().make();
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

TEST_P(PaValidCallTest, CreatesAndInfersTheOutputItCarries) {
    TestCall call = GetParam().make();
    Operation* raw = nullptr;
    ASSERT_TRUE(CreateOperation(call.Param<PaParam>(), &raw, call.platform).ok());
    std::unique_ptr<Operation> op(raw);
    SVector<TensorDesc> inputs;
    for (const io::HostTensor& t : call.inputs)
        inputs.push_back(t.desc);
    SVector<TensorDesc> outputs;
    const Status st = op->InferShape(inputs, outputs);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(ShapeToString(outputs[0].shape), ShapeToString(call.outputs[0].desc.shape));
    EXPECT_EQ(outputs[0].dtype, call.outputs[0].desc.dtype);
}

TEST_P(PaValidCallTest, RunsOnTheReferenceAndTheCpuBackend) {
    TestCall call = GetParam().make();
    EXPECT_EQ(RunOnEveryBackend(call), "");
}

std::string CallName(const testing::TestParamInfo<PaValidCall>& info) {
    std::string name = info.param.name;
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, PaValidCallTest, testing::ValuesIn(PaValidCalls()), CallName);

TEST(PaValidCalls, NamesAreUnique) {
    std::set<std::string> names;
    for (const PaValidCall& c : PaValidCalls())
        EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

TEST(PaValidCalls, EveryProfileHasCalls) {
    std::set<std::string> prefixes;
    for (const PaValidCall& c : PaValidCalls())
        prefixes.insert(c.name.substr(0, c.name.find('.')));
    EXPECT_EQ(prefixes, (std::set<std::string>{"a2", "a350", "inference", "training"}));
}

// Rows of skipped batches are never read, so their block ids are not checked (DECISIONS 4).
TEST(PaValidCalls, BlockIdsOfSkippedBatchesAreNotChecked) {
    TestCall call = PaCall("a2.decode.batch_run_status");  // batch 2 has status 0, batch 1 context 0
    const int64_t width = call.In("blockTables").desc.shape.dims[1];
    SetInt32(call, "blockTables", 2 * width, -5);
    SetInt32(call, "blockTables", 1 * width, 1 << 20);
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

// Entries past ceil(contextLens[b] / block_size) are not read either.
TEST(PaValidCalls, BlockIdsPastAContextAreNotChecked) {
    TestCall call = PaCall("a2.decode");  // contextLens[2] == 1: one block of a row of three
    const int64_t width = call.In("blockTables").desc.shape.dims[1];
    SetInt32(call, "blockTables", 2 * width + 1, -1);
    SetInt32(call, "blockTables", 2 * width + 2, 1 << 20);
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

// A mask larger than what is read is fine: only the rows and columns the call reads must exist.
TEST(PaValidCalls, MasksMayBeLargerThanRead) {
    TestCall call = PaCall("a2.spec.spec_mask");
    io::HostTensor& mask = call.In("mask");
    mask.desc.shape.dims[0] += 5;
    mask.desc.shape.dims[1] += 7;
    mask.bytes.resize(ElementCount(mask.desc) * DataTypeSize(mask.desc.dtype), 0);
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

}  // namespace
}  // namespace atbx::test
