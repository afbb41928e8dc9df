// Execute allocates nothing (docs/design.md, "Threads and memory"): Setup validates, plans, sizes the
// workspace and builds whatever Execute rebuilds; an Execute of the call Setup saw then makes no allocation
// on any thread, whether it follows Setup or repeats. Checked on every CPU path this machine has, each forced
// in turn, for every call of the valid-call catalogues (each PagedAttention and SelfAttention mode, feature,
// mask layout and profile) and every ReshapeAndCache mode, its outputs aliasing the caches (as models call
// it) or apart (the caches copied first).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "atbx/operation.h"
#include "support/allocation_count.h"
#include "support/cpu_path_fixture.h"
#include "support/pa_calls.h"
#include "support/rac_calls.h"
#include "support/sa_valid_calls.h"

namespace atbx::test {
namespace {

using CacheParam = infer::ReshapeAndCacheParam;

// Outputs 0 and 1 of a ReshapeAndCache call are keyCache and valueCache (key only: keyCache).
void AliasTheCaches(const TestCall& call, VariantPack* pack) {
    const char* caches[] = {"keyCache", "valueCache"};
    for (size_t k = 0; k < pack->outTensors.size(); ++k)
        pack->outTensors[k] = pack->inTensors[call.IndexOf(caches[k])];
}

class ExecuteAllocationsTest : public CpuPathFixture {
  protected:
    // Setup, then Execute twice; expects both to succeed and neither to allocate.
    void ExpectNoAllocation(TestCall& call, bool aliasCaches = false) {
        VariantPack pack = call.Pack();
        if (aliasCaches) AliasTheCaches(call, &pack);
        std::visit([&](const auto& param) { ExpectNoAllocation(param, call.platform, pack); }, call.param);
    }

  private:
    template <class Param>
    void ExpectNoAllocation(const Param& param, Platform platform, const VariantPack& pack) {
        Operation* raw = nullptr;
        ASSERT_TRUE(CreateOperation(param, &raw, platform).ok());
        const std::unique_ptr<Operation> op(raw);
        Context context{platform, 2, Backend::kCpu, Path()};
        uint64_t workspaceSize = 0;
        const Status setup = op->Setup(pack, workspaceSize, &context);
        ASSERT_TRUE(setup.ok()) << setup.ToString();
        std::vector<uint8_t> workspace(workspaceSize);
        for (const char* execute : {"the Execute after Setup", "a repeated Execute"}) {
            const AllocationCount allocations;
            const Status st = op->Execute(pack, workspace.data(), workspaceSize, &context);
            ASSERT_TRUE(st.ok()) << st.ToString();
            EXPECT_EQ(allocations.count(), 0) << execute << " on " << op->KernelName();
        }
    }
};

TEST_P(ExecuteAllocationsTest, PagedAttentionCallsAllocateNothing) {
    for (const PaValidCall& c : PaValidCalls()) {
        SCOPED_TRACE(c.name);
        TestCall call = c.make();
        ExpectNoAllocation(call);
    }
}

TEST_P(ExecuteAllocationsTest, SelfAttentionCallsAllocateNothing) {
    for (const SaValidCall& c : SaValidCalls()) {
        SCOPED_TRACE(c.name);
        TestCall call = c.make();
        ExpectNoAllocation(call);
    }
}

TEST_P(ExecuteAllocationsTest, ReshapeAndCacheCallsAllocateNothing) {
    struct Mode {
        const char* name;
        CacheParam param;
        Platform platform;
        RacShape shape;
    };
    const Mode modes[] = {
        {"nd", RacParam(0), Platform::kAtlasA2, MakeRacShape(300, 2, 32, 16, 16, 40, ACL_FLOAT16)},
        {"key only", RacParam(0, CacheParam::K_CACHE_V_BYPASS), Platform::kAtlasA2,
         MakeRacShape(40, 2, 32, 32, 16, 9, ACL_BF16)},
        {"nz a2 int8 keys", RacParam(0, CacheParam::K_CACHE_V_CACHE_NZ), Platform::kAtlasA2,
         MakeRacShape(50, 2, 64, 32, 16, 9, ACL_INT8, ACL_BF16)},
        {"nz inference", RacParam(0), Platform::kAtlasInference,
         MakeRacShape(50, 2, 32, 32, 32, 5, ACL_FLOAT16)},
        {"kvhead", RacParam(CacheParam::COMPRESS_TYPE_KVHEAD), Platform::kAtlasA2,
         MakeRacShape(30, 4, 32, 32, 16, 9, ACL_INT8, ACL_DT_UNDEFINED, {30})},
        {"kvhead rope", RacParam(CacheParam::COMPRESS_TYPE_KVHEAD_ROPE), Platform::kAtlasA2,
         MakeRacShape(60, 3, 32, 32, 16, 40, ACL_FLOAT16, ACL_DT_UNDEFINED, {40, 1, 19})},
    };
    for (const Mode& mode : modes) {
        for (const bool alias : {true, false}) {
            SCOPED_TRACE(std::string(mode.name) + (alias ? ", outputs alias the caches" : ", caches copied"));
            TestCall call = MakeRacCall(mode.param, mode.shape, mode.platform);
            ExpectNoAllocation(call, alias);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, ExecuteAllocationsTest, testing::ValuesIn(CpuPaths()), PathName);

}  // namespace
}  // namespace atbx::test
