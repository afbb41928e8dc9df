#include "perf/machine_info.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace atbx::perf {
namespace {

constexpr int64_t kFallbackCacheBytes = int64_t{32} << 20;

// sysfs cache sizes read "300M", "2048K" or a plain byte count.
int64_t ParseCacheSize(const std::string& text) {
    size_t used = 0;
    int64_t value = 0;
    try {
        value = std::stoll(text, &used);
    } catch (const std::exception&) {
        return 0;
    }
    const char unit = used < text.size() ? text[used] : ' ';
    if (unit == 'K') return value << 10;
    if (unit == 'M') return value << 20;
    if (unit == 'G') return value << 30;
    return value;
}

}  // namespace

std::string CpuModelName() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) != 0) continue;
        const size_t colon = line.find(':');
        if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
    return "unknown";
}

int64_t LastLevelCacheBytes() {
    const std::filesystem::path caches("/sys/devices/system/cpu/cpu0/cache");
    std::error_code error;
    int64_t largest = 0;
    for (const auto& entry : std::filesystem::directory_iterator(caches, error)) {
        std::ifstream sizeFile(entry.path() / "size");
        std::string size;
        if (sizeFile >> size) largest = std::max(largest, ParseCacheSize(size));
    }
    return largest > 0 ? largest : kFallbackCacheBytes;
}

int64_t PhysicalMemoryBytes() {
    return static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace atbx::perf
