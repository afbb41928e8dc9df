// The bound on a tensor mask's terms above the diagonal (plan/mask_diagonal_bound.h): ALiBi masks [H, S, S]
// in fp16 (-10000 above the diagonal), bf16 (-inf above it) and fp32, bf16 flag masks, rows at a prefix,
// against a brute force over Term() at every (head, row, key) the items read; no bound where a term above is
// NaN, an own key's term is not finite, the items read nothing above a diagonal, or the layout is FRACTAL_NZ.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include "plan/element.h"
#include "plan/mask_diagonal_bound.h"

namespace atbx::plan {
namespace {

constexpr int64_t kHeads = 4;
constexpr int64_t kSize = 40;  // mask rows and columns
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kThreads = 2;

struct HeadedTensor {
    std::vector<uint8_t> bytes;
    TensorMask mask;
};

// A [heads, size, size] mask: element (h, r, c) = value(h, r, c).
template <class Value>
HeadedTensor MakeMask(aclDataType dtype, Value value, int64_t heads = kHeads, int64_t size = kSize) {
    HeadedTensor t;
    t.bytes.resize(heads * size * size * (dtype == ACL_FLOAT ? 4 : 2));
    for (int64_t h = 0; h < heads; ++h) {
        for (int64_t r = 0; r < size; ++r) {
            for (int64_t c = 0; c < size; ++c)
                StoreElement(t.bytes.data(), dtype, (h * size + r) * size + c, value(h, r, c));
        }
    }
    t.mask.data = t.bytes.data();
    t.mask.dtype = dtype;
    t.mask.headStride = size * size;
    t.mask.rowStride = size;
    return t;
}

// ALiBi: slope_h (c - r) on and below the diagonal, `above` plus the bias above it.
HeadedTensor Alibi(aclDataType dtype, double above, int64_t heads = kHeads, int64_t size = kSize) {
    return MakeMask(
        dtype,
        [above](int64_t h, int64_t r, int64_t c) {
            const double bias = std::ldexp(static_cast<double>(c - r), -static_cast<int>(h) - 1);
            return c > r ? above + bias : bias;
        },
        heads, size);
}

// Items over keys [0, kv): two groups of heads (heads 0-1 and 2-3 of kHeads), rows from maskRow0 at
// positions from prefix.
std::vector<WorkItem> Items(int32_t rows, int32_t kv, int64_t prefix, int64_t maskRow0,
                            int32_t heads = kHeads) {
    std::vector<WorkItem> items;
    for (int32_t group = 0; group < 2; ++group) {
        WorkItem item;
        item.qLen = rows;
        item.kvEnd = kv;
        item.prefix = prefix;
        item.maskRow0 = maskRow0;
        item.headBegin = heads / 2 * group;
        item.headCount = heads / 2;
        item.kvHead = group;
        items.push_back(item);
    }
    return items;
}

// The largest float(term above a row's diagonal) - float(the row's own term), brute force over Term().
double LargestGap(const TensorMask& mask, const std::vector<WorkItem>& items) {
    double gap = -kInf;
    for (const WorkItem& item : items) {
        for (int64_t h = item.headBegin; h < item.headBegin + item.headCount; ++h) {
            for (int64_t i = 0; i < item.qLen; ++i) {
                const int64_t p = item.prefix + i;
                if (p < item.kvBegin || p >= item.kvEnd) continue;
                const auto own = static_cast<float>(mask.Term(item, h, i, p));
                for (int64_t j = p + 1; j < item.kvEnd; ++j)
                    gap = std::max(gap,
                                   static_cast<double>(static_cast<float>(mask.Term(item, h, i, j))) - own);
            }
        }
    }
    return gap;
}

std::optional<double> GapOf(const MaskPolicy& bounded) {
    if (!std::holds_alternative<TensorMask>(bounded)) return std::nullopt;
    return std::get<TensorMask>(bounded).diagonalGap;
}

// The gap is never below the brute force's and exceeds it only by the rounding allowance (2^-20 of the
// terms' magnitudes).
void ExpectBoundsTheTerms(const TensorMask& mask, const std::vector<WorkItem>& items) {
    const std::optional<double> gap = GapOf(WithDiagonalBound(mask, items, kThreads));
    ASSERT_TRUE(gap.has_value());
    const double exact = LargestGap(mask, items);
    EXPECT_GE(*gap, exact);
    EXPECT_LE(*gap, exact + 2 * std::ldexp(std::fabs(exact) + 1.0, -19));
}

TEST(MaskDiagonalBound, AlibiMasksAreBoundedInEveryDtype) {
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_FLOAT}) {
        SCOPED_TRACE(testing::Message() << "dtype " << dtype);
        const HeadedTensor t = Alibi(dtype, -10000.0);
        ExpectBoundsTheTerms(t.mask, Items(kSize, kSize, 0, 0));
        // Every term above the diagonal -10000 plus a bias of at most (kSize - 1) / 2 over the own term 0.
        EXPECT_LT(*GapOf(WithDiagonalBound(t.mask, Items(kSize, kSize, 0, 0), kThreads)), -9970.0);
    }
}

// bf16 ALiBi masks hide with -inf: nothing above the diagonal can weigh anything.
TEST(MaskDiagonalBound, MinusInfinityAboveTheDiagonalBoundsToMinusInfinity) {
    const HeadedTensor t = Alibi(ACL_BF16, -kInf);
    EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, Items(kSize, kSize, 0, 0), kThreads)), -kInf);
}

// Flags scale by -3e38: a flag mask that hides more than the upper triangle (a padding column) is bounded by
// the least flag above the diagonal.
TEST(MaskDiagonalBound, FlagsBoundByTheLeastFlagAboveTheDiagonal) {
    HeadedTensor t = MakeMask(
        ACL_BF16, [](int64_t, int64_t r, int64_t c) { return c > r || (c == 3 && r > 3) ? 1.0 : 0.0; });
    t.mask.flags = true;
    ExpectBoundsTheTerms(t.mask, Items(kSize, kSize, 0, 0));
    StoreElement(t.bytes.data(), ACL_BF16, 5 * kSize + 30, 0.5);  // head 0, row 5: a half flag above
    ExpectBoundsTheTerms(t.mask, Items(kSize, kSize, 0, 0));
    EXPECT_NEAR(*GapOf(WithDiagonalBound(t.mask, Items(kSize, kSize, 0, 0), kThreads)), -1.5e38, 1e33);
}

// The largest term above a diagonal sets the gap, whichever head, row and key holds it; one within
// kWeightlessGap of its row's own term leaves no bound.
TEST(MaskDiagonalBound, TheLargestTermAnywhereAboveADiagonalSetsTheGap) {
    for (const int64_t h : {0, 3}) {
        for (const double value : {-200.0, -110.0}) {
            SCOPED_TRACE(testing::Message() << "head " << h << " value " << value);
            HeadedTensor t = Alibi(ACL_FLOAT16, -10000.0);
            StoreElement(t.bytes.data(), ACL_FLOAT16, (h * kSize + 17) * kSize + 33, value);
            ExpectBoundsTheTerms(t.mask, Items(kSize, kSize, 0, 0));
        }
        for (const double value : {-103.0, 0.0, 7.0}) {
            SCOPED_TRACE(testing::Message() << "head " << h << " value " << value);
            HeadedTensor t = Alibi(ACL_FLOAT16, -10000.0);
            StoreElement(t.bytes.data(), ACL_FLOAT16, (h * kSize + 17) * kSize + 33, value);
            EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, Items(kSize, kSize, 0, 0), kThreads)), std::nullopt);
        }
    }
}

// Rows at prefix + i reading mask rows from maskRow0: the diagonal each row reads is at its position.
TEST(MaskDiagonalBound, RowsAtAPrefixReadTheirOwnDiagonal) {
    HeadedTensor t =
        MakeMask(ACL_FLOAT16, [](int64_t, int64_t r, int64_t c) { return c > r + 6 ? -10000.0 : 0.0; });
    const std::vector<WorkItem> items = Items(20, kSize, 10, 4);  // row i: mask row 4 + i, position 10 + i
    ExpectBoundsTheTerms(t.mask, items);
    EXPECT_LT(*GapOf(WithDiagonalBound(t.mask, items, kThreads)), -9000.0);
    // The key right after row 0's position (mask row 4, column 11) at -500: the gap is -500.
    StoreElement(t.bytes.data(), ACL_FLOAT16, 4 * kSize + 11, -500.0);
    ExpectBoundsTheTerms(t.mask, items);
    EXPECT_NEAR(*GapOf(WithDiagonalBound(t.mask, items, kThreads)), -500.0, 0.01);
}

TEST(MaskDiagonalBound, ANaNAboveADiagonalOrAnOwnTermNotFiniteGivesNoBound) {
    struct Edit {
        const char* what;
        int64_t row, column;
        double value;
    };
    for (const Edit& e : {Edit{"a NaN above the diagonal", 12, 39, NAN}, Edit{"a NaN own term", 20, 20, NAN},
                          Edit{"an infinite own term", 8, 8, kInf}, Edit{"a -inf own term", 8, 8, -kInf}}) {
        SCOPED_TRACE(e.what);
        HeadedTensor t = Alibi(ACL_FLOAT16, -10000.0);
        StoreElement(t.bytes.data(), ACL_FLOAT16, (2 * kSize + e.row) * kSize + e.column, e.value);
        EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, Items(kSize, kSize, 0, 0), kThreads)), std::nullopt);
    }
    // NaNs of either sign, in each width: the scan orders a negative NaN below -inf, a positive one above
    // +inf.
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_FLOAT}) {
        for (const uint32_t sign : {0u, 1u}) {
            SCOPED_TRACE(testing::Message() << "dtype " << dtype << (sign ? " -NaN" : " +NaN"));
            HeadedTensor t = Alibi(dtype, -10000.0);
            const int64_t at = (kSize + 12) * kSize + 30;  // head 1, row 12, key 30
            if (dtype == ACL_FLOAT) {
                reinterpret_cast<uint32_t*>(t.bytes.data())[at] = 0x7FC00001u | sign << 31;
            } else {
                const uint16_t nan = dtype == ACL_FLOAT16 ? 0x7C01 : 0x7F81;
                reinterpret_cast<uint16_t*>(t.bytes.data())[at] = static_cast<uint16_t>(nan | sign << 15);
            }
            EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, Items(kSize, kSize, 0, 0), kThreads)), std::nullopt);
        }
    }
}

// Elements no item reads do not matter: rows past the items', keys past their kvEnd, heads of a mask without
// a head dim other than 0, items that compute nothing.
TEST(MaskDiagonalBound, ElementsNoItemReadsAreIgnored) {
    HeadedTensor t = Alibi(ACL_FLOAT16, -10000.0);
    StoreElement(t.bytes.data(), ACL_FLOAT16, 35 * kSize + 38, NAN);  // head 0, row 35: past the items' rows
    StoreElement(t.bytes.data(), ACL_FLOAT16, 3 * kSize + 38, NAN);   // head 0, key 38: past kvEnd 36
    EXPECT_TRUE(GapOf(WithDiagonalBound(t.mask, Items(30, 36, 0, 0), kThreads)).has_value());
    HeadedTensor shared = Alibi(ACL_FLOAT16, -10000.0);
    shared.mask.headStride = 0;
    StoreElement(shared.bytes.data(), ACL_FLOAT16, (1 * kSize + 3) * kSize + 30, NAN);  // head 1
    EXPECT_TRUE(GapOf(WithDiagonalBound(shared.mask, Items(kSize, kSize, 0, 0), kThreads)).has_value());
    std::vector<WorkItem> skipped = Items(kSize, kSize, 0, 0);
    skipped[0].zeroOutput = true;
    StoreElement(t.bytes.data(), ACL_FLOAT16, 5 * kSize + 30, NAN);  // head 0: item 0's
    EXPECT_TRUE(GapOf(WithDiagonalBound(t.mask, skipped, kThreads)).has_value());
}

// A mask with more elements above its diagonals than one thread scans ([8, 300, 300]): the same gap on one
// and three threads as the brute force's; a NaN above a diagonal still leaves no bound.
TEST(MaskDiagonalBound, LargeMasksAreBoundedAlikeOnEveryThreadCount) {
    constexpr int64_t kLargeHeads = 8, kLargeSize = 300;
    HeadedTensor t = Alibi(ACL_FLOAT16, -10000.0, kLargeHeads, kLargeSize);
    StoreElement(t.bytes.data(), ACL_FLOAT16, (5 * kLargeSize + 100) * kLargeSize + 290, -300.0);
    const std::vector<WorkItem> items = Items(kLargeSize, kLargeSize, 0, 0, kLargeHeads);
    ExpectBoundsTheTerms(t.mask, items);
    EXPECT_NEAR(*GapOf(WithDiagonalBound(t.mask, items, kThreads)), -300.0, 0.01);
    for (const int threads : {1, 3})
        EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, items, threads)),
                  GapOf(WithDiagonalBound(t.mask, items, kThreads)));
    StoreElement(t.bytes.data(), ACL_FLOAT16, (7 * kLargeSize + 250) * kLargeSize + 299, NAN);
    for (const int threads : {1, 3})
        EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, items, threads)), std::nullopt);
}

// Nothing above any diagonal read (one row at the last position), FRACTAL_NZ layouts and masks other than
// tensors get no bound.
TEST(MaskDiagonalBound, NothingAboveADiagonalLayoutsAndOtherMasksGiveNoBound) {
    const HeadedTensor t = Alibi(ACL_FLOAT16, -10000.0);
    EXPECT_EQ(GapOf(WithDiagonalBound(t.mask, Items(1, kSize, kSize - 1, kSize - 1), kThreads)),
              std::nullopt);
    HeadedTensor nz = Alibi(ACL_FLOAT16, -10000.0);
    nz.mask.columnTile = 16;
    nz.mask.columnTileStride = kSize * 16;
    EXPECT_EQ(GapOf(WithDiagonalBound(nz.mask, Items(kSize, kSize, 0, 0), kThreads)), std::nullopt);
    EXPECT_TRUE(
        std::holds_alternative<NoMask>(WithDiagonalBound(NoMask{}, Items(kSize, kSize, 0, 0), kThreads)));
    EXPECT_TRUE(std::holds_alternative<CausalMask>(
        WithDiagonalBound(CausalMask{}, Items(kSize, kSize, 0, 0), kThreads)));
}

}  // namespace
}  // namespace atbx::plan
