// What the host CPU can execute, detected once per process (cpuid, xgetbv, and Linux's permission for AMX
// tile state). Kernel paths ask for the features they were compiled for before they accept a call.
#ifndef ATBX_CORE_CPU_FEATURES_H
#define ATBX_CORE_CPU_FEATURES_H

#include <string>
#include <string_view>
#include <vector>

namespace atbx::core {

struct CpuFeatures {
    bool avx2 = false;
    bool fma = false;
    bool f16c = false;
    bool avx512f = false;  // with the OS saving the zmm and mask state
    bool avx512bw = false;
    bool avx512vl = false;
    bool avx512dq = false;
    bool avx512bf16 = false;
    bool avx512vnni = false;
    bool avx512fp16 = false;
    bool amxBf16 = false;  // tile state granted by the kernel (arch_prctl ARCH_REQ_XCOMP_PERM)
    bool amxInt8 = false;
};

// Detected on first use, then cached, less the features ATBX_HIDE_CPU_FEATURES names (HideCpuFeatures): as
// NumPy's NPY_DISABLE_CPU_FEATURES, it lets one machine run every kernel as a CPU without them would, for
// tests (an AVX-512 path without AVX512-BF16 and AVX512-VNNI) and to reproduce what another machine computes.
const CpuFeatures& HostCpu();
inline constexpr const char* kHideCpuFeaturesVariable = "ATBX_HIDE_CPU_FEATURES";

// `features` less those `names` lists (separated by spaces or commas): DescribeCpuFeatures' names, "fma" and
// "f16c". A set goes with the sets that the paths need it for: "avx2" hides AVX-512 and AMX too, "avx512" (F,
// BW, DQ, VL) its extensions and AMX (whose path runs on AVX-512). Names it does not know are appended to
// *unknown.
CpuFeatures HideCpuFeatures(CpuFeatures features, std::string_view names, std::vector<std::string>* unknown);

// Whether ATBX_HIDE_CPU_FEATURES hides `feature`, whether or not the CPU has it: a path that runs on a
// software model of a feature (cpu:amx in builds with ATBX_AMX_MODEL) is refused where the feature is hidden.
bool CpuFeatureHidden(bool CpuFeatures::*feature);

// The names in ATBX_HIDE_CPU_FEATURES that HideCpuFeatures did not know (`atbx paths` reports them).
const std::vector<std::string>& UnknownHiddenCpuFeatures();

// The names HideCpuFeatures knows, space-separated.
std::string HideableCpuFeatureNames();

// "avx512 avx512bf16 avx512vnni avx512fp16 amx-bf16 amx-int8 avx2" style list of the vector and matrix sets
// present ("sse2" when none): avx512 is F+BW+VL, avx2 is AVX2+FMA.
std::string DescribeCpuFeatures(const CpuFeatures& features);

}  // namespace atbx::core

#endif  // ATBX_CORE_CPU_FEATURES_H
