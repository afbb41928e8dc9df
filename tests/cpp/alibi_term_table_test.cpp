// A compressed ALiBi mask's term table (kernels/cpu/alibi_term_table.h): read through its view at each
// item's rows, it gives Term()'s value rounded to fp32 for every head, query row and key the items read, in
// both distance forms, fp32 and fp16 slopes, items at several prefixes, on one and three threads alike; the
// left-aligned form and other masks have no table.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "kernels/cpu/alibi_term_table.h"
#include "plan/element.h"

namespace atbx::kernels::cpu {
namespace {

constexpr int kHeads = 6;

struct AlibiPlan {
    std::vector<uint8_t> slopes;
    plan::AttentionPlan plan;
};

// Items of three sequences (prefixes 0, 5 and 130; 9, 1 and 40 query rows) over two groups of three heads,
// plus an item that computes nothing, far past the others.
AlibiPlan MakePlan(plan::AlibiMask::Form form, aclDataType slopeType) {
    AlibiPlan p;
    p.slopes.resize(kHeads * 4);
    for (int h = 0; h < kHeads; ++h)
        plan::StoreElement(p.slopes.data(), slopeType, h,
                           -std::exp2(-0.75 * (h + 1)) * (h % 2 == 0 ? 1.0 : -3.0));
    plan::AlibiMask mask;
    mask.form = form;
    mask.slopes = p.slopes.data();
    mask.slopeType = slopeType;
    p.plan.mask = mask;
    const int64_t prefixes[] = {0, 5, 130};
    const int32_t rows[] = {9, 1, 40};
    for (int s = 0; s < 3; ++s) {
        for (int32_t group = 0; group < 2; ++group) {
            plan::WorkItem item;
            item.prefix = prefixes[s];
            item.qLen = rows[s];
            item.kvEnd = static_cast<int32_t>(prefixes[s] + rows[s]);
            item.headBegin = 3 * group;
            item.headCount = 3;
            p.plan.items.push_back(item);
        }
    }
    plan::WorkItem skipped;
    skipped.prefix = 5000;
    skipped.qLen = 3;
    skipped.kvEnd = 5003;
    skipped.headCount = kHeads;
    skipped.zeroOutput = true;
    p.plan.items.push_back(skipped);
    return p;
}

std::vector<float> Table(const plan::AttentionPlan& plan, int threads, KernelCall::MaskRows* view) {
    std::vector<float> table(AlibiTermTableFloats(plan), NAN);
    *view = FillAlibiTermTable(plan, table.data(), threads);
    return table;
}

TEST(AlibiTermTable, ReadAtEachRowItGivesTheTermsOfEveryKey) {
    for (const auto form : {plan::AlibiMask::Form::kDistance, plan::AlibiMask::Form::kSqrtDistance}) {
        for (const aclDataType slopeType : {ACL_FLOAT, ACL_FLOAT16}) {
            SCOPED_TRACE(testing::Message() << "form " << static_cast<int>(form) << " slopes " << slopeType);
            const AlibiPlan p = MakePlan(form, slopeType);
            const auto& mask = std::get<plan::AlibiMask>(p.plan.mask);
            KernelCall::MaskRows view;
            const std::vector<float> table = Table(p.plan, 2, &view);
            // P = 169, K = 170: six heads of 339 floats.
            ASSERT_EQ(table.size(), size_t{kHeads} * 339);
            ASSERT_EQ(view.dtype, ACL_FLOAT);
            const auto* terms = static_cast<const float*>(view.data);
            for (const plan::WorkItem& item : p.plan.items) {
                if (item.zeroOutput) continue;
                for (int64_t h = item.headBegin; h < item.headBegin + item.headCount; ++h) {
                    for (int64_t i = 0; i < item.qLen; ++i) {
                        for (int64_t j = item.kvBegin; j < item.kvEnd + 3 && j < 170; ++j) {
                            const auto want = static_cast<float>(mask.Term(item, h, i, j));
                            ASSERT_EQ(terms[view.RowStart(item, h, i) + j], want)
                                << "head " << h << " position " << item.prefix + i << " key " << j;
                        }
                    }
                }
            }
        }
    }
}

TEST(AlibiTermTable, OneAndThreeThreadsFillTheSameTable) {
    const AlibiPlan p = MakePlan(plan::AlibiMask::Form::kSqrtDistance, ACL_FLOAT);
    KernelCall::MaskRows one, three;
    const std::vector<float> a = Table(p.plan, 1, &one), b = Table(p.plan, 3, &three);
    ASSERT_EQ(a.size(), b.size());
    for (size_t x = 0; x < a.size(); ++x)
        ASSERT_EQ(std::signbit(a[x]), std::signbit(b[x])) << x;
    EXPECT_EQ(a, b);
}

TEST(AlibiTermTable, LeftAlignedAlibiAndOtherMasksHaveNone) {
    AlibiPlan p = MakePlan(plan::AlibiMask::Form::kColumn, ACL_FLOAT);
    EXPECT_EQ(AlibiTermTableFloats(p.plan), 0);
    p.plan.mask = plan::CausalMask{};
    EXPECT_EQ(AlibiTermTableFloats(p.plan), 0);
    p.plan.mask = plan::TensorMask{};
    EXPECT_EQ(AlibiTermTableFloats(p.plan), 0);
}

}  // namespace
}  // namespace atbx::kernels::cpu
