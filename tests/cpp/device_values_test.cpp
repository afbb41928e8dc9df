// Device tensors may change between Setup and Execute (as on the NPU, where Setup sees shapes and Execute
// the data): Execute computes with the values it is given. Each call is Setup with one set of values, then
// changed in what the plan derives from them, then Executed: SelfAttention masks whose values decide the
// form the planner gives them (a full causal mask, an ALiBi mask hidden above its diagonal, a compressed
// tile's hidden value), PagedAttention's compressed mask value and dequantisation scales. On the reference
// backend and on every CPU path this machine has, each forced in turn, against the float64 reference of the
// changed call under the precision standard.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "atbx/operation.h"
#include "plan/element.h"
#include "support/cpu_path_fixture.h"
#include "support/pa_calls.h"
#include "support/run_call.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

using SaParam = infer::SelfAttentionParam;

// One change of device values and the extent its precision check needs.
struct Change {
    std::function<void(TestCall&)> apply;
    int64_t headDim, maxKvLen;
};

// Every element of the mask that `hidden` says is hidden set to `value`.
void SetHiddenElements(TestCall& call, const std::function<bool(double)>& hidden, double value) {
    io::HostTensor& mask = call.In(call.IndexOf("attentionMask") >= 0 ? "attentionMask" : "mask");
    for (int64_t e = 0; e < ElementCount(mask); ++e) {
        if (hidden(plan::LoadElement(mask.bytes.data(), mask.desc.dtype, e))) SetElement(mask, e, value);
    }
}

// A PA_ENCODER prefill of lengths 300, 129 and 1 (GQA 4, head size 128, fp16) with a mask of `maskType`.
TestCall Prefill(SaParam::MaskType maskType, SaMaskForm form = SaMaskForm::kShared) {
    SaParam p = PaEncoderParam();
    p.headNum = 8;
    p.kvHeadNum = 2;
    p.maskType = maskType;
    p.isTriuMask = maskType == SaParam::MASK_TYPE_NORM_COMPRESS ? 1 : 0;
    SaShape shape = MakeSaShape(128, {300, 129, 1}, ACL_FLOAT16);
    shape.mask = form;
    return MakeSaCall(p, shape);
}

// The full [S, S] NORM mask of a causal prefill (0 on and below the diagonal, -10000 above), which the
// planner decodes to a CausalMask.
TestCall FullCausalPrefill() {
    TestCall call = Prefill(SaParam::MASK_TYPE_NORM);
    io::HostTensor& mask = call.In("attentionMask");
    const int64_t cols = mask.desc.shape.dims[1];
    for (int64_t e = 0; e < ElementCount(mask); ++e)
        SetElement(mask, e, e % cols > e / cols ? -10000.0 : 0.0);
    return call;
}

// An ALiBi mask [H, S, S], which the planner bounds above the diagonal (plan/mask_diagonal_bound.h).
TestCall AlibiPrefill() {
    TestCall call = Prefill(SaParam::MASK_TYPE_ALIBI, SaMaskForm::kPerHead);
    UseModelAlibiMask(call);
    return call;
}

TestCall CompressedCausalPrefill() {
    TestCall call = Prefill(SaParam::MASK_TYPE_NORM_COMPRESS);
    UseModelMaskTile(call, 0);
    return call;
}

const auto kNonZero = [](double value) { return value != 0.0; };
const auto kAboveMinus5000 = [](double value) { return value < -5000.0; };

class DeviceValuesTest : public CpuPathFixture {
  protected:
    // Setup with the call as it is, then change.apply(call), then Execute (its output poisoned first) on
    // `backend` (cpu: this fixture's path); the output must meet the standard against the changed call's
    // reference.
    void ExpectExecuteUsesTheChangedValues(const TestCall& original, const Change& change) {
        for (const Backend backend : {Backend::kReference, Backend::kCpu}) {
            SCOPED_TRACE(backend == Backend::kCpu ? Path() : "reference");
            TestCall call = original;
            const VariantPack pack = call.Pack();
            std::visit([&](const auto& param) { SetupChangeExecute(param, call, pack, backend, change); },
                       call.param);
            if (HasFatalFailure()) return;
            TestCall expected = original;
            change.apply(expected);
            EXPECT_EQ(PrecisionFailure(call, ReferenceResult(expected), change.headDim, change.maxKvLen), "");
        }
    }

  private:
    template <class Param>
    void SetupChangeExecute(const Param& param, TestCall& call, const VariantPack& pack, Backend backend,
                            const Change& change) {
        Operation* raw = nullptr;
        ASSERT_TRUE(CreateOperation(param, &raw, call.platform).ok());
        const std::unique_ptr<Operation> op(raw);
        Context context{call.platform, 2, backend, backend == Backend::kCpu ? Path() : nullptr};
        uint64_t workspaceSize = 0;
        const Status setup = op->Setup(pack, workspaceSize, &context);
        ASSERT_TRUE(setup.ok()) << setup.ToString();
        change.apply(call);
        for (io::HostTensor& out : call.outputs)
            std::fill(out.bytes.begin(), out.bytes.end(), uint8_t{0xFF});
        std::vector<uint8_t> workspace(workspaceSize, 0xFF);
        const Status st = op->Execute(pack, workspace.data(), workspaceSize, &context);
        ASSERT_TRUE(st.ok()) << st.ToString();
    }
};

// Setup sees a causal mask; Execute a mask that hides nothing.
TEST_P(DeviceValuesTest, AFullMaskIsPlannedFromTheValuesExecuteIsGiven) {
    ExpectExecuteUsesTheChangedValues(FullCausalPrefill(),
                                      {[](TestCall& c) { SetHiddenElements(c, kNonZero, 0.0); }, 128, 300});
}

// Setup sees keys above the diagonal hidden by -10000; Execute sees them with a term of -1.
TEST_P(DeviceValuesTest, AnAlibiMaskIsBoundedByTheValuesExecuteIsGiven) {
    ExpectExecuteUsesTheChangedValues(
        AlibiPrefill(), {[](TestCall& c) { SetHiddenElements(c, kAboveMinus5000, -1.0); }, 128, 300});
}

// A compressed tile's hidden value is read from the tile: -10000 at Setup, -1 at Execute.
TEST_P(DeviceValuesTest, ACompressedTilesHiddenValueIsReadWhenExecuting) {
    ExpectExecuteUsesTheChangedValues(CompressedCausalPrefill(),
                                      {[](TestCall& c) { SetHiddenElements(c, kNonZero, -1.0); }, 128, 300});
}

// PagedAttention's MASK_FREE tile (atlas-inference) the same.
TEST_P(DeviceValuesTest, APagedCompressedTilesHiddenValueIsReadWhenExecuting) {
    ExpectExecuteUsesTheChangedValues(PaCall("inference.mask_free"),
                                      {[](TestCall& c) { SetHiddenElements(c, kNonZero, -1.0); }, 48, 258});
}

// DEQUANT_FUSION's descales and offsets, decoded to fp32 where the call is planned, are decoded again from
// the values Execute is given.
TEST_P(DeviceValuesTest, DequantisationScalesAreReadWhenExecuting) {
    const auto change = [](TestCall& c) {
        ScaleElements(c.In("kDescale"), 3.0);
        ScaleElements(c.In("vDescale"), -0.5);
        ScaleElements(c.In("kOffset"), -1.0);
    };
    ExpectExecuteUsesTheChangedValues(PaCall("a2.dequant.offsets"), {change, 64, 40});
}

INSTANTIATE_TEST_SUITE_P(Registry, DeviceValuesTest, testing::ValuesIn(CpuPaths()), PathName);

}  // namespace
}  // namespace atbx::test
