// The cpu:amx path's kernel (attention_amx.cpp): the AVX-512 kernel's schedule, with the tasks that have many
// lanes (prefill row blocks, MLA decode) run on AMX bf16 tiles and every other task handed to
// avx512::RunTask. Call only where core::HostCpu() has AMX-BF16 (with Linux's permission for the tile state;
// not in ATBX_AMX_MODEL builds, whose tile instructions run on a software model), AVX-512 F/BW/DQ/VL/BF16,
// FMA and F16C.
#ifndef ATBX_KERNELS_CPU_AMX_KERNEL_H
#define ATBX_KERNELS_CPU_AMX_KERNEL_H

#include <cstdint>

#include "kernels/cpu/kernel_call.h"

namespace atbx::kernels::cpu::amx {

// Bytes of packing scratch one thread needs (a multiple of 64) beside the call's own scratch; longTasks:
// LongTasks(plan), row blocks then interleave and keep more state.
int64_t ThreadScratchBytes(int headDim, int headDimV, bool longTasks);

// Bytes the runner's order of the schedule needs for a plan of `items` work items (a multiple of 64).
int64_t OrderScratchBytes(int64_t items);

// What the runner reads of the plan beyond KernelCall (cpu_paths.cpp fills it: this header's code is compiled
// with AMX flags and instantiates no template of the plan's headers).
struct AmxOptions {
    bool queriesAsStored = false;  // no qScale to apply: the queries are read as the tensor holds them
    // A causal or sliding-window mask (plan::CausalMask) whose hidden keys take one value: added here with
    // vector compares instead of the per-key AddMaskTerms.
    bool causal = false;
    float maskedValue = 0.0f;
    int64_t window = 0;
};

// Runs the call. `threadScratch` holds ThreadScratchBytes(...) bytes per thread of the call, `orderScratch`
// OrderScratchBytes(items) bytes; both 64-byte aligned.
void RunAttention(const KernelCall& call, char* threadScratch, char* orderScratch, int64_t items,
                  const AmxOptions& options);

}  // namespace atbx::kernels::cpu::amx

#endif  // ATBX_KERNELS_CPU_AMX_KERNEL_H
