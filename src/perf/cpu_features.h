// The instruction sets this CPU and its operating system let a process use, read with cpuid and xgetbv, so
// that code compiled for one instruction set runs only where it can.
#ifndef ATBX_PERF_CPU_FEATURES_H
#define ATBX_PERF_CPU_FEATURES_H

#include <string>

namespace atbx::perf {

struct CpuFeatures {
    bool avx2 = false;    // AVX2 and FMA3, with the ymm state enabled by the OS
    bool avx512 = false;  // AVX-512 F/BW/VL, with the zmm and opmask state enabled by the OS
    bool avx512bf16 = false;
    bool avx512fp16 = false;
    bool amxBf16 = false;  // AMX-TILE and AMX-BF16 with the tile state enabled in XCR0 (a process must still
                           // request the tile data permission, perf/amx_permission.h)
    bool amxInt8 = false;
};

CpuFeatures DetectCpuFeatures();

// "avx512 avx512bf16 avx512fp16 amx-bf16 amx-int8 avx2" style list of what DetectCpuFeatures found.
std::string DescribeCpuFeatures(const CpuFeatures& features);

}  // namespace atbx::perf

#endif  // ATBX_PERF_CPU_FEATURES_H
