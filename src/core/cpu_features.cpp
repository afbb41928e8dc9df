#include "core/cpu_features.h"

#include <cpuid.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace atbx::core {
namespace {

struct CpuidRegs {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs Cpuid(unsigned leaf, unsigned subleaf) {
    CpuidRegs r;
    if (static_cast<unsigned>(__get_cpuid_max(0, nullptr)) < leaf) return r;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
}

bool Bit(unsigned reg, int bit) {
    return ((reg >> bit) & 1u) != 0;
}

// XCR0: which register states the OS saves on a context switch.
uint64_t EnabledStates() {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

// Linux hands out the AMX tile data state (XFEATURE 18) only on request.
bool RequestAmxPermission() {
#if defined(__linux__)
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
}

CpuFeatures Detect() {
    CpuFeatures f;
    const CpuidRegs l1 = Cpuid(1, 0);
    const bool osxsave = Bit(l1.ecx, 27);
    if (!osxsave) return f;
    const uint64_t xcr0 = EnabledStates();
    const bool ymmSaved = (xcr0 & 0x6) == 0x6;
    const bool zmmSaved = (xcr0 & 0xE6) == 0xE6;
    const bool tilesSaved = (xcr0 & 0x60000) == 0x60000;
    const CpuidRegs l7 = Cpuid(7, 0);
    const CpuidRegs l7s1 = Cpuid(7, 1);
    f.fma = ymmSaved && Bit(l1.ecx, 12);
    f.f16c = ymmSaved && Bit(l1.ecx, 29);
    f.avx2 = ymmSaved && Bit(l7.ebx, 5);
    f.avx512f = zmmSaved && Bit(l7.ebx, 16);
    f.avx512dq = f.avx512f && Bit(l7.ebx, 17);
    f.avx512bw = f.avx512f && Bit(l7.ebx, 30);
    f.avx512vl = f.avx512f && Bit(l7.ebx, 31);
    f.avx512fp16 = f.avx512f && Bit(l7.edx, 23);
    f.avx512bf16 = f.avx512f && Bit(l7s1.eax, 5);
    f.avx512vnni = f.avx512f && Bit(l7.ecx, 11);
    const bool amxTile = tilesSaved && Bit(l7.edx, 24);
    if (amxTile && RequestAmxPermission()) {
        f.amxBf16 = Bit(l7.edx, 22);
        f.amxInt8 = Bit(l7.edx, 25);
    }
    return f;
}

void HideAvx512(CpuFeatures& f) {
    f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = false;
    f.avx512bf16 = f.avx512vnni = f.avx512fp16 = false;
    f.amxBf16 = f.amxInt8 = false;  // the AMX path runs on AVX-512
}

// What each name HideCpuFeatures knows hides.
struct Hideable {
    std::string_view name;
    void (*hide)(CpuFeatures&);
};
constexpr Hideable kHideable[] = {
    {"avx2",
     [](CpuFeatures& f) {
         f.avx2 = false;
         HideAvx512(f);
     }},
    {"fma", [](CpuFeatures& f) { f.fma = false; }},
    {"f16c", [](CpuFeatures& f) { f.f16c = false; }},
    {"avx512", HideAvx512},
    {"avx512bf16", [](CpuFeatures& f) { f.avx512bf16 = false; }},
    {"avx512vnni", [](CpuFeatures& f) { f.avx512vnni = false; }},
    {"avx512fp16", [](CpuFeatures& f) { f.avx512fp16 = false; }},
    {"amx-bf16", [](CpuFeatures& f) { f.amxBf16 = false; }},
    {"amx-int8", [](CpuFeatures& f) { f.amxInt8 = false; }},
};

struct HostDetection {
    CpuFeatures features;
    std::string hidden;  // ATBX_HIDE_CPU_FEATURES
    std::vector<std::string> unknownHidden;
};

const HostDetection& Host() {
    static const HostDetection host = [] {
        HostDetection h;
        const char* hidden = std::getenv(kHideCpuFeaturesVariable);
        h.hidden = hidden != nullptr ? hidden : "";
        h.features = HideCpuFeatures(Detect(), h.hidden, &h.unknownHidden);
        return h;
    }();
    return host;
}

}  // namespace

CpuFeatures HideCpuFeatures(CpuFeatures features, std::string_view names, std::vector<std::string>* unknown) {
    constexpr std::string_view kSeparators = " ,";
    for (size_t at = names.find_first_not_of(kSeparators); at != std::string_view::npos;
         at = names.find_first_not_of(kSeparators, at)) {
        const size_t end = std::min(names.find_first_of(kSeparators, at), names.size());
        const std::string_view name = names.substr(at, end - at);
        const auto* known = std::find_if(std::begin(kHideable), std::end(kHideable),
                                         [name](const Hideable& h) { return h.name == name; });
        if (known != std::end(kHideable)) {
            known->hide(features);
        } else {
            unknown->emplace_back(name);
        }
        at = end;
    }
    return features;
}

const CpuFeatures& HostCpu() {
    return Host().features;
}

bool CpuFeatureHidden(bool CpuFeatures::*feature) {
    CpuFeatures present;
    present.*feature = true;
    std::vector<std::string> unknown;
    return !(HideCpuFeatures(present, Host().hidden, &unknown).*feature);
}

const std::vector<std::string>& UnknownHiddenCpuFeatures() {
    return Host().unknownHidden;
}

std::string HideableCpuFeatureNames() {
    std::string names;
    for (const Hideable& h : kHideable) {
        if (!names.empty()) names += ' ';
        names += h.name;
    }
    return names;
}

std::string DescribeCpuFeatures(const CpuFeatures& features) {
    std::string text;
    const auto add = [&text](bool present, const char* name) {
        if (!present) return;
        if (!text.empty()) text += ' ';
        text += name;
    };
    add(features.avx512f && features.avx512bw && features.avx512vl, "avx512");
    add(features.avx512bf16, "avx512bf16");
    add(features.avx512vnni, "avx512vnni");
    add(features.avx512fp16, "avx512fp16");
    add(features.amxBf16, "amx-bf16");
    add(features.amxInt8, "amx-int8");
    add(features.avx2 && features.fma, "avx2");
    return text.empty() ? std::string("sse2") : text;
}

}  // namespace atbx::core
