// What the host CPU can execute, detected once per process (cpuid, xgetbv, and Linux's permission for AMX
// tile state). Kernel paths ask for the features they were compiled for before they accept a call.
#ifndef ATBX_CORE_CPU_FEATURES_H
#define ATBX_CORE_CPU_FEATURES_H

#include <string>

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

// Detected on first use, then cached.
const CpuFeatures& HostCpu();

// "avx512 avx512bf16 avx512vnni avx512fp16 amx-bf16 amx-int8 avx2" style list of the vector and matrix sets
// present ("sse2" when none): avx512 is F+BW+VL, avx2 is AVX2+FMA.
std::string DescribeCpuFeatures(const CpuFeatures& features);

}  // namespace atbx::core

#endif  // ATBX_CORE_CPU_FEATURES_H
