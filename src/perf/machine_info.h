// What a benchmark reports about the machine it ran on and sizes its buffers by: the CPU model, the size of
// the last-level cache, and the memory installed.
#ifndef ATBX_PERF_MACHINE_INFO_H
#define ATBX_PERF_MACHINE_INFO_H

#include <cstdint>
#include <string>

namespace atbx::perf {

// "model name" of /proc/cpuinfo ("unknown" when absent).
std::string CpuModelName();

// Bytes of the largest (last-level) cache cpu0 reports in sysfs; 32 MiB when sysfs says nothing.
int64_t LastLevelCacheBytes();

// Physical memory installed, in bytes.
int64_t PhysicalMemoryBytes();

}  // namespace atbx::perf

#endif  // ATBX_PERF_MACHINE_INFO_H
