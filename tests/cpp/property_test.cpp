// Property: every valid call agrees on every path. Random calls drawn across every feature and profile
// (support/property_calls.h: catalogue params, random geometry, kept when every rule passes) run on the
// reference and on each CPU path (support/every_path.h), each path on 2 threads and on another count that
// must give the same bytes. A failing call is shrunk to a minimal one (fewer batches, shorter contexts, fewer
// heads) and saved as a case file for tests/data/regressions/. CI draws kDefaultSamples calls;
// ATBX_PROPERTY_SAMPLES=N draws N (ATBX_PROPERTY_SEED changes the first seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "io/case_file.h"
#include "io/param_json.h"
#include "support/case_writer.h"
#include "support/every_path.h"
#include "support/property_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

// Whether the build runs under AddressSanitizer: GCC defines __SANITIZE_ADDRESS__, clang before 15 only
// answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Under AddressSanitizer every call runs several times slower: fewer draws keep the sanitizer stage short.
constexpr int kDefaultSamples = kAddressSanitizer ? 40 : 200;

uint64_t EnvNumber(const char* name, uint64_t fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 10) : fallback;
}

// Each path runs a call on 2 threads and again on OtherThreads(seed), which must write the same bytes: 1, 3,
// and counts beyond the tasks of small calls and the cores of CI's machines. Under AddressSanitizer (clang's
// libomp) a team of 5 or more threads leaves libomp's own allocations (1440 bytes per thread, made in
// __kmp_fork_call) for LeakSanitizer to report at exit, so that build draws 1 and 3.
int OtherThreads(uint64_t seed) {
    constexpr int kCounts[] = {1, 3, 5, 8};
    return kCounts[seed % (kAddressSanitizer ? 2 : 4)];
}

std::string Fails(const Sample& sample, int otherThreads) {
    return CheckEveryPath(sample.Make(), 2, otherThreads).failure;
}

// Where shrunk failures are written: ATBX_REGRESSION_OUT, else regressions/ in the test's directory.
std::filesystem::path RegressionOut() {
    const char* dir = std::getenv("ATBX_REGRESSION_OUT");
    return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::current_path() / "regressions";
}

TEST(Property, RandomValidCallsAgreeOnEveryPath) {
    const uint64_t samples = EnvNumber("ATBX_PROPERTY_SAMPLES", kDefaultSamples);
    const uint64_t firstSeed = EnvNumber("ATBX_PROPERTY_SEED", 1);
    std::map<std::string, int> drawn;  // per op family, for the log
    int pathsRun = 0;
    for (uint64_t seed = firstSeed; seed < firstSeed + samples; ++seed) {
        std::mt19937_64 rng(seed);
        const std::optional<Sample> sample = DrawValidSample(rng);
        if (!sample) continue;
        ++drawn[sample->origin.substr(0, sample->origin.find('.'))];
        const PathReport report = CheckEveryPath(sample->Make(), 2, OtherThreads(seed));
        pathsRun += static_cast<int>(report.ran.size());
        if (report.failure.empty()) continue;
        const auto fails = [seed](const Sample& s) { return Fails(s, OtherThreads(seed)); };
        const Sample minimal = Shrink(*sample, fails);
        const std::filesystem::path dir = RegressionOut() / ("property_seed_" + std::to_string(seed));
        WriteCase(minimal.Make(), dir,
                  "property test seed " + std::to_string(seed) + ": " + minimal.Describe());
        ADD_FAILURE() << "seed " << seed << ": " << sample->Describe() << "\n  " << report.failure
                      << "\n  shrunk to: " << minimal.Describe() << "\n  " << fails(minimal)
                      << "\n  saved as " << dir.string() << " (copy it into tests/data/regressions/)";
    }
    for (const auto& [family, count] : drawn)
        std::cout << family << ": " << count << " valid calls\n";
    std::cout << pathsRun << " CPU path runs compared\n";
    // The generator must reach every family, and the CPU paths must run most calls, or the property is
    // vacuous.
    EXPECT_EQ(drawn.size(), 3u);
    EXPECT_GT(pathsRun, static_cast<int>(samples) / 3);
}

// The shrinker, on an injected failure (a PagedAttention call "fails" when some context has 20 keys or more
// and there are 4 query heads or more): the minimal call has one batch of exactly 20 keys, 4 heads and the
// smallest head size the rules allow.
TEST(Property, ShrinkingFindsTheSmallestFailingCall) {
    infer::PagedAttentionParam param;
    param.headNum = 16;
    param.kvHeadNum = 4;
    PaShape shape;
    shape.headSize = 128;
    shape.blockSize = 64;
    shape.contextLens = {57, 3, 90, 31};
    const Sample start{"pa.a2.decode", param, Platform::kAtlasA2, shape};
    const auto fails = [](const Sample& s) -> std::string {
        const auto& lens = std::get<PaShape>(s.shape).contextLens;
        const bool longContext = std::any_of(lens.begin(), lens.end(), [](int32_t l) { return l >= 20; });
        return longContext && std::get<infer::PagedAttentionParam>(s.param).headNum >= 4 ? "injected" : "";
    };
    ASSERT_EQ(fails(start), "injected");
    const Sample minimal = Shrink(start, fails);
    const PaShape& small = std::get<PaShape>(minimal.shape);
    EXPECT_EQ(small.contextLens, std::vector<int32_t>{20}) << minimal.Describe();
    EXPECT_EQ(std::get<infer::PagedAttentionParam>(minimal.param).headNum, 4) << minimal.Describe();
    EXPECT_EQ(small.headSize, 16) << minimal.Describe();
    EXPECT_EQ(small.blockSize, 16) << minimal.Describe();
}

// Shrinking a failure must itself never fail: the shrinker builds every candidate it proposes (the rules
// then reject some), so the builders must stay inside their tensors for geometries the rules reject, and the
// smallest call must still be one the rules accept. Here every candidate "fails", so the shrinker walks each
// drawn call down through every kind of candidate (under AddressSanitizer in CI: a candidate with more query
// rows than context once wrote past its mask, a negative token count made a vector of 2^64 elements).
TEST(Property, ShrinkingDrawnCallsBuildsEveryCandidateSafely) {
    const auto alwaysFails = [](const Sample&) -> std::string { return "injected"; };
    int shrunk = 0;
    for (uint64_t seed = 1; seed <= 48; ++seed) {
        std::mt19937_64 rng(seed);
        const std::optional<Sample> sample = DrawValidSample(rng);
        if (!sample) continue;
        const Sample minimal = Shrink(*sample, alwaysFails);
        TestCall call = minimal.Make();
        EXPECT_TRUE(ViolatedRules(call).empty())
            << "seed " << seed << ": " << minimal.Describe() << "\n  " << DescribeViolations(call);
        shrunk += minimal.Describe() != sample->Describe() ? 1 : 0;
    }
    EXPECT_GT(shrunk, 24) << "the shrinker found smaller calls for too few of the drawn ones";
}

// A shrunk case written as a case file loads back as the same call.
TEST(Property, SavedCaseLoadsBackAsTheSameCall) {
    std::mt19937_64 rng(7);
    const std::optional<Sample> sample = DrawValidSample(rng);
    ASSERT_TRUE(sample);
    const TestCall call = sample->Make();
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "atbx_property_saved_case";
    std::filesystem::remove_all(dir);
    WriteCase(call, dir, sample->Describe());
    const io::CaseFile loaded = io::LoadCase(dir / "case.json", io::LoadOptions{});
    EXPECT_EQ(io::ParamToJson(loaded.param), io::ParamToJson(call.param));
    EXPECT_EQ(loaded.platform, call.platform);
    ASSERT_EQ(loaded.inputs.size(), call.inputs.size());
    for (size_t i = 0; i < call.inputs.size(); ++i) {
        EXPECT_TRUE(std::ranges::equal(loaded.inputs[i].bytes.span(), call.inputs[i].bytes)) << i;
        EXPECT_EQ(ShapeToString(loaded.inputs[i].desc.shape), ShapeToString(call.inputs[i].desc.shape)) << i;
        EXPECT_EQ(loaded.inputs[i].desc.format, call.inputs[i].desc.format) << i;
    }
    EXPECT_EQ(loaded.outputFiles.size(), call.outputs.size());
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace atbx::test
