#include "perf/cpu_features.h"

#include <cpuid.h>

#include <cstdint>

namespace atbx::perf {
namespace {

struct Registers {
    uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Registers Cpuid(uint32_t leaf, uint32_t subleaf) {
    Registers r;
    if (static_cast<uint32_t>(__get_cpuid_max(0, nullptr)) < leaf) return r;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
}

bool Bit(uint32_t value, int bit) {
    return ((value >> bit) & 1u) != 0;
}

// XCR0: which register states the OS saves on a context switch (Intel SDM vol. 1, 13.3).
uint64_t EnabledStates() {
    uint32_t low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return (uint64_t{high} << 32) | low;
}

}  // namespace

CpuFeatures DetectCpuFeatures() {
    CpuFeatures f;
    const Registers leaf1 = Cpuid(1, 0);
    if (!Bit(leaf1.ecx, 27)) return f;  // OSXSAVE: xgetbv is usable
    const uint64_t xcr0 = EnabledStates();
    const bool ymm = (xcr0 & 0x6) == 0x6;            // SSE and AVX state
    const bool zmm = (xcr0 & 0xe6) == 0xe6;          // plus opmask, upper zmm halves, zmm16-31
    const bool tiles = (xcr0 & 0x60000) == 0x60000;  // XTILECFG and XTILEDATA
    const Registers leaf7 = Cpuid(7, 0);
    const Registers leaf7s1 = Cpuid(7, 1);
    f.avx2 = ymm && Bit(leaf1.ecx, 12) && Bit(leaf7.ebx, 5);                           // FMA, AVX2
    f.avx512 = zmm && Bit(leaf7.ebx, 16) && Bit(leaf7.ebx, 30) && Bit(leaf7.ebx, 31);  // F, BW, VL
    f.avx512bf16 = f.avx512 && Bit(leaf7s1.eax, 5);
    f.avx512fp16 = f.avx512 && Bit(leaf7.edx, 23);
    f.amxBf16 = tiles && Bit(leaf7.edx, 24) && Bit(leaf7.edx, 22);  // AMX-TILE, AMX-BF16
    f.amxInt8 = tiles && Bit(leaf7.edx, 24) && Bit(leaf7.edx, 25);
    return f;
}

std::string DescribeCpuFeatures(const CpuFeatures& features) {
    std::string text;
    const auto add = [&text](bool present, const char* name) {
        if (!present) return;
        if (!text.empty()) text += ' ';
        text += name;
    };
    add(features.avx512, "avx512");
    add(features.avx512bf16, "avx512bf16");
    add(features.avx512fp16, "avx512fp16");
    add(features.amxBf16, "amx-bf16");
    add(features.amxInt8, "amx-int8");
    add(features.avx2, "avx2");
    return text.empty() ? std::string("sse2") : text;
}

}  // namespace atbx::perf
