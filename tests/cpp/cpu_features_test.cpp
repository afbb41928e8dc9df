// Hiding CPU features (ATBX_HIDE_CPU_FEATURES, src/core/cpu_features.h): what each name hides, and that the
// host's features honour the variable (run with it set by CTest's cpp.avx512_without_bf16_vnni).
#include <cstdlib>

#include "core/cpu_features.h"

namespace atbx::core {
namespace {

CpuFeatures Everything() {
    CpuFeatures f;
    f.avx2 = f.fma = f.f16c = true;
    f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = true;
    f.avx512bf16 = f.avx512vnni = f.avx512fp16 = true;
    f.amxBf16 = f.amxInt8 = true;
    return f;
}

CpuFeatures Hide(std::string_view names, std::vector<std::string>* unknown = nullptr) {
    std::vector<std::string> ignored;
    return HideCpuFeatures(Everything(), names, unknown != nullptr ? unknown : &ignored);
}

TEST(CpuFeatures, HidingExtensionsLeavesAvx512) {
    const CpuFeatures f = Hide("avx512bf16, avx512vnni");
    EXPECT_FALSE(f.avx512bf16);
    EXPECT_FALSE(f.avx512vnni);
    EXPECT_TRUE(f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq && f.avx512fp16);
    EXPECT_TRUE(f.avx2 && f.fma && f.f16c && f.amxBf16 && f.amxInt8);
    EXPECT_EQ(DescribeCpuFeatures(f), "avx512 avx512fp16 amx-bf16 amx-int8 avx2");
}

TEST(CpuFeatures, HidingAvx512HidesItsExtensionsAndAmx) {
    const CpuFeatures f = Hide("avx512");
    EXPECT_EQ(DescribeCpuFeatures(f), "avx2");
    EXPECT_FALSE(f.avx512f || f.avx512bw || f.avx512vl || f.avx512dq);
    EXPECT_FALSE(f.avx512bf16 || f.avx512vnni || f.avx512fp16 || f.amxBf16 || f.amxInt8);
    EXPECT_TRUE(f.fma && f.f16c);
}

TEST(CpuFeatures, HidingAvx2HidesEveryWiderSet) {
    const CpuFeatures f = Hide("avx2");
    EXPECT_EQ(DescribeCpuFeatures(f), "sse2");
    EXPECT_TRUE(f.fma && f.f16c);
}

TEST(CpuFeatures, EachNameHidesItsOwnFeature) {
    EXPECT_FALSE(Hide("fma").fma);
    EXPECT_FALSE(Hide("f16c").f16c);
    EXPECT_FALSE(Hide("avx512fp16").avx512fp16);
    EXPECT_FALSE(Hide("amx-bf16").amxBf16);
    EXPECT_TRUE(Hide("amx-bf16").amxInt8);
    EXPECT_FALSE(Hide("amx-int8").amxInt8);
    EXPECT_EQ(HideableCpuFeatureNames(),
              "avx2 fma f16c avx512 avx512bf16 avx512vnni avx512fp16 amx-bf16 amx-int8");
}

TEST(CpuFeatures, UnknownNamesAreReportedAndSeparatorsRepeat) {
    std::vector<std::string> unknown;
    const CpuFeatures f = Hide(" ,avx512vnni,,sse9  AVX2 f16c, ", &unknown);
    EXPECT_FALSE(f.avx512vnni);
    EXPECT_FALSE(f.f16c);
    EXPECT_TRUE(f.avx2);  // names are lower case, as DescribeCpuFeatures prints them
    EXPECT_EQ(unknown, (std::vector<std::string>{"sse9", "AVX2"}));
}

TEST(CpuFeatures, NoNamesHideNothing) {
    std::vector<std::string> unknown;
    EXPECT_EQ(DescribeCpuFeatures(Hide("", &unknown)), DescribeCpuFeatures(Everything()));
    EXPECT_EQ(DescribeCpuFeatures(Hide(" , ", &unknown)), DescribeCpuFeatures(Everything()));
    EXPECT_TRUE(unknown.empty());
}

// Hiding the variable's features again from the host's changes nothing: they are hidden already.
TEST(CpuFeatures, TheHostHidesWhatTheVariableNames) {
    const char* hidden = std::getenv(kHideCpuFeaturesVariable);
    if (hidden == nullptr || *hidden == '\0') GTEST_SKIP() << kHideCpuFeaturesVariable << " is not set";
    std::vector<std::string> unknown;
    const CpuFeatures again = HideCpuFeatures(HostCpu(), hidden, &unknown);
    EXPECT_EQ(DescribeCpuFeatures(HostCpu()), DescribeCpuFeatures(again));
    EXPECT_EQ(HostCpu().fma, again.fma);
    EXPECT_EQ(HostCpu().f16c, again.f16c);
    EXPECT_EQ(UnknownHiddenCpuFeatures(), unknown);
}

}  // namespace
}  // namespace atbx::core
