// A tensor mask that holds a causal mask is decoded to the CausalMask it holds (plan/mask_causal_form.h) only
// where every element the items read says so: [S, S] and [B, S, S] masks in fp16, bf16 (flags) and fp32, rows
// offset by a prefix, sliding windows; any visible element that is not a zero, any hidden one that differs, a
// NaN hidden value, a head dim or a FRACTAL_NZ layout keeps the tensor. Decoded, its Term() equals the
// tensor's everywhere read.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "plan/element.h"
#include "plan/mask_causal_form.h"

namespace atbx::plan {
namespace {

constexpr int64_t kSize = 40;  // mask rows and columns

struct CausalTensor {
    std::vector<uint8_t> bytes;
    TensorMask mask;
};

// A [batches, kSize, kSize] mask, hidden above the diagonal shifted by `shift` (row r hides columns
// > r + shift) and, with a window W, at columns <= r + shift - W, with `hidden`; visible elements alternate
// +0 and -0.
CausalTensor MakeCausal(aclDataType dtype, int64_t batches, double hidden, int64_t shift = 0,
                        bool flags = false, int64_t window = 0) {
    CausalTensor t;
    const int64_t bytes = dtype == ACL_FLOAT ? 4 : 2;
    t.bytes.resize(batches * kSize * kSize * bytes);
    for (int64_t b = 0; b < batches; ++b) {
        for (int64_t r = 0; r < kSize; ++r) {
            for (int64_t c = 0; c < kSize; ++c) {
                const bool masked = c > r + shift || (window > 0 && c <= r + shift - window);
                const double value = masked ? hidden : ((r + c) % 2 == 0 ? 0.0 : -0.0);
                StoreElement(t.bytes.data(), dtype, (b * kSize + r) * kSize + c, value);
            }
        }
    }
    t.mask.data = t.bytes.data();
    t.mask.dtype = dtype;
    t.mask.batchStride = batches > 1 ? kSize * kSize : 0;
    t.mask.rowStride = kSize;
    t.mask.flags = flags;
    return t;
}

// Items of two batches over keys [0, kv): rows from maskRow0, positions from prefix (row i at prefix + i).
std::vector<WorkItem> Items(int32_t rows, int32_t kv, int64_t prefix, int64_t maskRow0) {
    std::vector<WorkItem> items;
    for (int32_t b = 0; b < 2; ++b) {
        for (int32_t head = 0; head < 2; ++head) {
            WorkItem item;
            item.batch = b;
            item.maskBatch = b;
            item.qLen = rows;
            item.kvEnd = kv;
            item.prefix = prefix;
            item.maskRow0 = maskRow0;
            item.kvHead = head;
            items.push_back(item);
        }
    }
    return items;
}

// The decoded mask's Term() equals the tensor's at every (row, key) an item reads, up to the sign of zero.
void ExpectSameTerms(const MaskPolicy& decoded, const TensorMask& tensor,
                     const std::vector<WorkItem>& items) {
    for (const WorkItem& item : items) {
        for (int64_t i = 0; i < item.qLen; ++i) {
            for (int64_t j = item.kvBegin; j < item.kvEnd; ++j) {
                const double want = tensor.Term(item, 0, i, j);
                const double got = std::visit([&](const auto& m) { return m.Term(item, 0, i, j); }, decoded);
                ASSERT_EQ(got, want) << "row " << i << " key " << j;
            }
        }
    }
}

TEST(MaskCausalForm, CausalTensorsAreDecodedInEveryDtype) {
    for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_FLOAT}) {
        for (int64_t batches : {1, 2}) {
            SCOPED_TRACE(testing::Message() << "dtype " << dtype << " batches " << batches);
            const CausalTensor t = MakeCausal(dtype, batches, -10000.0);
            const std::vector<WorkItem> items = Items(kSize, kSize, 0, 0);
            const MaskPolicy decoded = CausalFormOf(t.mask, items);
            ASSERT_TRUE(std::holds_alternative<CausalMask>(decoded));
            EXPECT_EQ(std::get<CausalMask>(decoded).maskedValue, LoadElement(t.bytes.data(), dtype, 1));
            EXPECT_EQ(std::get<CausalMask>(decoded).window, 0);
            ExpectSameTerms(decoded, t.mask, items);
        }
    }
}

// A sliding-window mask (keys before the window hidden too) decodes to the windowed causal mask.
TEST(MaskCausalForm, WindowsAreDecoded) {
    for (int64_t window : {1, 7, 39}) {
        SCOPED_TRACE(testing::Message() << "window " << window);
        const CausalTensor t = MakeCausal(ACL_FLOAT16, 1, -10000.0, 0, false, window);
        const std::vector<WorkItem> items = Items(kSize, kSize, 0, 0);
        const MaskPolicy decoded = CausalFormOf(t.mask, items);
        ASSERT_TRUE(std::holds_alternative<CausalMask>(decoded));
        EXPECT_EQ(std::get<CausalMask>(decoded).window, window);
        ExpectSameTerms(decoded, t.mask, items);
    }
}

// Rows whose windows differ, or a row that sees more keys than the others' window with none hidden below it,
// hold no windowed causal mask.
TEST(MaskCausalForm, InconsistentWindowsKeepTheTensor) {
    const std::vector<WorkItem> items = Items(kSize, kSize, 0, 0);
    CausalTensor widened = MakeCausal(ACL_FLOAT16, 1, -10000.0, 0, false, 5);
    StoreElement(widened.bytes.data(), ACL_FLOAT16, 20 * kSize + 15, 0.0);  // row 20 sees 6 keys
    EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(widened.mask, items)));
    CausalTensor unwindowed = MakeCausal(ACL_FLOAT16, 1, -10000.0, 0, false, 5);
    for (int64_t c = 0; c < 30; ++c)  // row 30 hides nothing below its diagonal: it sees 31 keys
        StoreElement(unwindowed.bytes.data(), ACL_FLOAT16, 30 * kSize + c, 0.0);
    EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(unwindowed.mask, items)));
}

// bf16 flags: the hidden 1 stands for 1 * -3e38.
TEST(MaskCausalForm, FlagsDecodeToTheFlagValue) {
    const CausalTensor t = MakeCausal(ACL_BF16, 1, 1.0, 0, true);
    const MaskPolicy decoded = CausalFormOf(t.mask, Items(kSize, kSize, 0, 0));
    ASSERT_TRUE(std::holds_alternative<CausalMask>(decoded));
    EXPECT_EQ(std::get<CausalMask>(decoded).maskedValue, TensorMask::kFlagScale);
}

// Rows that sit at prefix + i and read mask rows from maskRow0 (a prefill after a cached history): the mask
// is causal for those positions when its diagonal is shifted by prefix - maskRow0.
TEST(MaskCausalForm, RowsAtAPrefixReadTheShiftedDiagonal) {
    const CausalTensor shifted = MakeCausal(ACL_FLOAT16, 1, -10000.0, 6);
    const std::vector<WorkItem> items = Items(20, kSize, 10, 4);
    const MaskPolicy decoded = CausalFormOf(shifted.mask, items);
    ASSERT_TRUE(std::holds_alternative<CausalMask>(decoded));
    ExpectSameTerms(decoded, shifted.mask, items);
    const CausalTensor plain = MakeCausal(ACL_FLOAT16, 1, -10000.0);
    EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(plain.mask, items)));
}

TEST(MaskCausalForm, AnyElementOutOfPatternKeepsTheTensor) {
    const std::vector<WorkItem> items = Items(kSize, kSize, 0, 0);
    struct Edit {
        const char* what;
        int64_t row, column;
        double value;
    };
    for (const Edit& e : {Edit{"a visible term", 7, 3, -1.0}, Edit{"a visible NaN", 20, 20, NAN},
                          Edit{"a hidden term that differs", 2, 30, -9000.0},
                          Edit{"a visible element above the diagonal", 0, 1, 0.0}}) {
        SCOPED_TRACE(e.what);
        CausalTensor t = MakeCausal(ACL_FLOAT16, 1, -10000.0);
        StoreElement(t.bytes.data(), ACL_FLOAT16, e.row * kSize + e.column, e.value);
        EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(t.mask, items)));
    }
}

// Elements no item reads do not matter: rows past the items' and keys past their kvEnd.
TEST(MaskCausalForm, ElementsNoItemReadsAreIgnored) {
    CausalTensor t = MakeCausal(ACL_FLOAT16, 1, -10000.0);
    StoreElement(t.bytes.data(), ACL_FLOAT16, 35 * kSize + 2, 5.0);  // row 35: past the items' 30 rows
    StoreElement(t.bytes.data(), ACL_FLOAT16, 3 * kSize + 38, 5.0);  // key 38: past kvEnd 36
    const std::vector<WorkItem> items = Items(30, 36, 0, 0);
    const MaskPolicy decoded = CausalFormOf(t.mask, items);
    ASSERT_TRUE(std::holds_alternative<CausalMask>(decoded));
    ExpectSameTerms(decoded, t.mask, items);
}

TEST(MaskCausalForm, NaNHeadDimsLayoutsAndNothingHiddenKeepTheTensor) {
    const std::vector<WorkItem> items = Items(kSize, kSize, 0, 0);
    const CausalTensor nan = MakeCausal(ACL_FLOAT16, 1, NAN);
    EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(nan.mask, items)));
    CausalTensor perHead = MakeCausal(ACL_FLOAT16, 2, -10000.0);
    perHead.mask.batchStride = 0;
    perHead.mask.headStride = kSize * kSize;
    EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(perHead.mask, items)));
    CausalTensor nz = MakeCausal(ACL_FLOAT16, 1, -10000.0);
    nz.mask.columnTile = 16;
    nz.mask.columnTileStride = kSize * 16;
    EXPECT_TRUE(std::holds_alternative<TensorMask>(CausalFormOf(nz.mask, items)));
    // One row at the last position hides nothing: the tensor stays (nothing to skip).
    const CausalTensor decode = MakeCausal(ACL_FLOAT16, 1, -10000.0);
    EXPECT_TRUE(
        std::holds_alternative<TensorMask>(CausalFormOf(decode.mask, Items(1, kSize, kSize - 1, kSize - 1))));
    EXPECT_TRUE(std::holds_alternative<NoMask>(CausalFormOf(NoMask{}, items)));
}

}  // namespace
}  // namespace atbx::plan
