// ReshapeAndCache's plan (ops/reshape_and_cache/rac_plan.cpp) is rebuilt by every Execute from the slots it
// is given: the rebuilt plan keeps each stream's row storage, so that an Execute makes no large allocation
// once the operation has run, whether the outputs alias the caches (as models call it) or the caches are
// copied first. Comparing the storage's address cannot tell, since the allocator hands a freed block straight
// back; so this test binary's operator new counts the large allocations a thread makes while asked to.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <ostream>
#include <vector>

#include "ops/call_validation.h"
#include "ops/reshape_and_cache/rac_spec.h"
#include "support/rac_calls.h"

namespace atbx::test {
namespace {

constexpr std::size_t kLargeBytes = 1024;
thread_local bool tCounting = false;
thread_local int tLargeAllocations = 0;

// Counts the large allocations of the thread from construction to destruction.
class LargeAllocations {
  public:
    LargeAllocations() {
        tLargeAllocations = 0;
        tCounting = true;
    }
    ~LargeAllocations() { tCounting = false; }
    int count() const { return tLargeAllocations; }
};

}  // namespace
}  // namespace atbx::test

// Out of line, so that the compiler does not pair a new expression with the free() below (it warns of a
// mismatch where it sees both).
[[gnu::noinline]] void* operator new(std::size_t size) {
    if (atbx::test::tCounting && size >= atbx::test::kLargeBytes) ++atbx::test::tLargeAllocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}

[[gnu::noinline]] void operator delete(void* p) noexcept {
    std::free(p);
}

[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;
using Spec = ops::rac::ReshapeAndCacheSpec;

// Large allocations of rebuilding the call's plan once it has been built.
int RebuildAllocations(TestCall& call, bool aliased) {
    VariantPack pack = call.Pack();
    if (aliased) {  // outputs 0 and 1 are keyCache and valueCache
        pack.outTensors[0].deviceData = pack.inTensors[call.IndexOf("keyCache")].deviceData;
        pack.outTensors[1].deviceData = pack.inTensors[call.IndexOf("valueCache")].deviceData;
    }
    ops::CallValidation<Spec> validation(call.Param<Param>(), call.platform);
    validation.SetPack(pack);
    EXPECT_TRUE(validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues).empty());
    plan::CacheWritePlan plan = Spec::BuildPlan(validation.subject());
    EXPECT_EQ(plan.streams.size(), aliased ? 2u : 4u);
    const LargeAllocations allocations;
    Spec::RebuildPlan(validation.subject(), &plan);
    return allocations.count();
}

struct PlanCase {
    const char* name;
    Param param;
    RacShape shape;
};

void PrintTo(const PlanCase& c, std::ostream* out) {
    *out << c.name;
}

class RacPlanTest : public testing::TestWithParam<PlanCase> {};

TEST_P(RacPlanTest, RebuildingKeepsEveryStreamsRowStorage) {
    for (const bool aliased : {true, false}) {
        SCOPED_TRACE(aliased ? "outputs alias the caches" : "caches copied first");
        TestCall call = MakeRacCall(GetParam().param, GetParam().shape);
        EXPECT_EQ(RebuildAllocations(call, aliased), 0);
    }
}

std::string CaseName(const testing::TestParamInfo<PlanCase>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Modes, RacPlanTest,
                         testing::Values(PlanCase{"nd", RacParam(Param::COMPRESS_TYPE_UNDEFINED),
                                                  MakeRacShape(300, 2, 32, 16, 16, 40, ACL_FLOAT16)},
                                         PlanCase{"kvhead", RacParam(Param::COMPRESS_TYPE_KVHEAD),
                                                  MakeRacShape(30, 4, 32, 32, 16, 9, ACL_INT8,
                                                               ACL_DT_UNDEFINED, {30})}),
                         CaseName);

}  // namespace
}  // namespace atbx::test
