// The CPU attention paths ("cpu:amx", "cpu:avx512", "cpu:avx2", "cpu:scalar"): the one kernel of
// attention_kernel.inl compiled per instruction set (cpu:amx runs its many-row tasks on AMX tiles,
// attention_amx.cpp), each accepting a call only where the host CPU has its features.
#ifndef ATBX_KERNELS_CPU_CPU_PATHS_H
#define ATBX_KERNELS_CPU_CPU_PATHS_H

#include <cstdint>
#include <optional>
#include <string>

#include "plan/attention_plan.h"

namespace atbx::kernels::cpu {

// Why the path cannot run the plan: first the CPU feature it lacks, then the plan feature; nothing when it
// can.
std::optional<std::string> AmxRefusal(const plan::AttentionPlan& plan);
std::optional<std::string> Avx512Refusal(const plan::AttentionPlan& plan);
std::optional<std::string> Avx2Refusal(const plan::AttentionPlan& plan);
std::optional<std::string> ScalarRefusal(const plan::AttentionPlan& plan);

// Whether this build runs cpu:amx's tile instructions on the software model of amx_tile_model.h (CMake option
// ATBX_AMX_MODEL, for tests): cpu:amx then needs no AMX of the CPU, and is some hundred times slower.
bool AmxTilesOnModel();

// Workspace bytes of every path but cpu:amx (the same layout, wide row blocks), and of cpu:amx (the layout of
// narrow row blocks, then AMX packing scratch per thread: kernel_call.h, RowBlockWidth).
uint64_t AttentionWorkspaceBytes(const plan::AttentionPlan& plan, int threads);
uint64_t AmxWorkspaceBytes(const plan::AttentionPlan& plan, int threads);

// Run the path with a workspace of its bytes.
void RunAmx(const plan::AttentionPlan& plan, int threads, void* workspace);
void RunAvx512(const plan::AttentionPlan& plan, int threads, void* workspace);
void RunAvx2(const plan::AttentionPlan& plan, int threads, void* workspace);
void RunScalar(const plan::AttentionPlan& plan, int threads, void* workspace);

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_CPU_PATHS_H
