// The row-segment form of every mask kind (plan::AddMaskTerms, for vectorised kernels) adds exactly what the
// reference's per-key Term() adds, for every layout (ND, FRACTAL_NZ) and dtype; -inf terms hide whatever the
// score; plan::ClassifyTile calls a tile hidden only when every term is -inf.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/float16.h"
#include "plan/element.h"
#include "plan/mask_segment.h"

namespace atbx::plan {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr int kHeads = 3, kRows = 16, kColumns = 160;

// Random values in [-8, 8) stored in the dtype, with a few -inf among them.
std::vector<uint8_t> RandomBuffer(aclDataType dtype, int64_t count, std::mt19937_64& rng) {
    const int64_t bytes = dtype == ACL_FLOAT ? 4 : 2;
    std::vector<uint8_t> buffer(count * bytes);
    std::uniform_real_distribution<double> value(-8.0, 8.0);
    for (int64_t i = 0; i < count; ++i)
        StoreElement(buffer.data(), dtype, i, i % 37 == 5 ? kNegInf : value(rng));
    return buffer;
}

WorkItem Item() {
    WorkItem item;
    item.prefix = 9;
    item.maskBatch = 1;
    item.maskRow0 = 2;
    item.kvEnd = kColumns;
    return item;
}

// Every segment of keys [j0, j0 + n) of every head and row: scores start random, the segment form must give
// score + float(term), or -inf where the term is -inf.
void ExpectSegmentsMatchTerm(const MaskPolicy& mask, int64_t rows) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> score(-4.0f, 4.0f);
    const WorkItem item = Item();
    for (int64_t h = 0; h < kHeads; ++h) {
        for (int64_t i = 0; i < rows; ++i) {
            for (int64_t j0 : {0, 5, 17, 127}) {
                for (int32_t n : {1, 13, 31}) {
                    std::vector<float> scores(n), expected(n);
                    for (int32_t t = 0; t < n; ++t) {
                        scores[t] = score(rng);
                        const double term =
                            std::visit([&](const auto& m) { return m.Term(item, h, i, j0 + t); }, mask);
                        expected[t] = term == kNegInf ? -INFINITY : scores[t] + static_cast<float>(term);
                    }
                    AddMaskTerms(mask, item, h, i, j0, n, scores.data());
                    for (int32_t t = 0; t < n; ++t) {
                        ASSERT_EQ(scores[t], expected[t])
                            << "head " << h << " row " << i << " key " << j0 + t;
                    }
                }
            }
        }
    }
}

TEST(MaskSegment, TensorMasksMatchTermInEveryDtypeAndLayout) {
    std::mt19937_64 rng(3);
    for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_FLOAT}) {
        for (int columnTile : {0, 16}) {
            for (bool flags : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "dtype " << dtype << " tile " << columnTile << " flags " << flags);
                const std::vector<uint8_t> data = RandomBuffer(dtype, 2 * kHeads * kRows * kColumns, rng);
                TensorMask m;
                m.data = data.data();
                m.dtype = dtype;
                m.batchStride = kHeads * kRows * kColumns;
                m.headStride = kRows * kColumns;
                m.rowStride = columnTile == 0 ? kColumns : 16;
                m.columnTile = columnTile;
                m.columnTileStride = kRows * 16;
                m.flags = flags;
                ExpectSegmentsMatchTerm(m, kRows - Item().maskRow0);
            }
        }
    }
}

TEST(MaskSegment, CausalMasksMatchTerm) {
    for (double hidden : {-60000.0, kNegInf}) {
        for (int64_t window : {0, 4}) {
            CausalMask m;
            m.maskedValue = hidden;
            m.window = window;
            ExpectSegmentsMatchTerm(m, kRows);
        }
    }
}

TEST(MaskSegment, AlibiMasksMatchTerm) {
    const std::vector<float> slopes = {-0.5f, -0.25f, 0.125f};
    const std::vector<uint16_t> halfSlopes = {core::DoubleToHalf(-0.5), core::DoubleToHalf(0.75),
                                              core::DoubleToHalf(-2.0)};
    for (AlibiMask::Form form :
         {AlibiMask::Form::kDistance, AlibiMask::Form::kSqrtDistance, AlibiMask::Form::kColumn}) {
        AlibiMask m;
        m.form = form;
        m.slopes = slopes.data();
        m.slopeType = ACL_FLOAT;
        ExpectSegmentsMatchTerm(m, kRows);
        m.slopes = halfSlopes.data();
        m.slopeType = ACL_FLOAT16;
        ExpectSegmentsMatchTerm(m, kRows);
    }
}

TEST(MaskSegment, AlibiTileMasksMatchTermInBothLayouts) {
    std::mt19937_64 rng(5);
    constexpr int64_t tileRows = 32;  // rows p - t read: p <= prefix + kRows
    const std::vector<uint8_t> data = RandomBuffer(ACL_FLOAT16, kHeads * tileRows * 128, rng);
    for (int columnTile : {0, 16}) {
        AlibiTileMask m;
        m.data = data.data();
        m.dtype = ACL_FLOAT16;
        m.headStride = tileRows * 128;
        m.rowStride = columnTile == 0 ? 128 : 16;
        m.columnTile = columnTile;
        m.columnTileStride = tileRows * 16;
        ExpectSegmentsMatchTerm(m, kRows);
    }
}

TEST(MaskSegment, NoMaskAddsNothing) {
    ExpectSegmentsMatchTerm(NoMask{}, kRows);
}

// A tile is hidden only where every row's every term is -inf: never for finite hidden values.
TEST(MaskSegment, TilesAreHiddenOnlyWhereEveryTermIsMinusInf) {
    const WorkItem item = Item();  // rows at positions 9 + i
    CausalMask finite;
    EXPECT_EQ(ClassifyTile(finite, item, 0, 4, 64, 96), TileClass::kPartial);
    EXPECT_EQ(ClassifyTile(finite, item, 0, 4, 0, 9), TileClass::kVisible);
    CausalMask hides;
    hides.maskedValue = kNegInf;
    EXPECT_EQ(ClassifyTile(hides, item, 0, 4, 64, 96), TileClass::kHidden);
    EXPECT_EQ(ClassifyTile(hides, item, 0, 4, 10, 20), TileClass::kPartial);
    const std::vector<float> slopes = {-0.5f, -0.25f, 0.125f};
    AlibiMask alibi;
    alibi.slopes = slopes.data();
    for (const MaskPolicy& mask : {MaskPolicy(finite), MaskPolicy(hides), MaskPolicy(alibi)}) {
        for (int64_t j0 = 0; j0 < kColumns; j0 += 8) {
            if (ClassifyTile(mask, item, 0, 4, j0, j0 + 8) != TileClass::kHidden) continue;
            for (int64_t i = 0; i < 4; ++i) {
                for (int64_t j = j0; j < j0 + 8; ++j) {
                    std::vector<float> score = {1.0f};
                    AddMaskTerms(mask, item, 0, i, j, 1, score.data());
                    EXPECT_EQ(score[0], -INFINITY) << "row " << i << " key " << j;
                }
            }
        }
    }
}

}  // namespace
}  // namespace atbx::plan
