// The terms of a compressed ALiBi mask whose bias is a function of the distance p - j (plan::AlibiMask's
// kDistance and kSqrtDistance forms: ALIBI_COMPRESS, ALIBI_COMPRESS_SQRT), laid out as an ND mask the
// kernels read by rows, so that they add its terms in vectors as they add a tensor mask's rather than a call
// per lane and tile (AddMaskTerms). Such a term depends on the head and on j - p only: head h's row of the
// table holds the terms of j - p = x - P for x in [0, P + K) (P the largest query position, K the largest
// key end of the plan's items), so the terms of the query at position p over keys [j0, j0 + n) are the n
// floats from x = j0 - p + P: a row that starts P - p floats into the head's, read with rowStride -1 at the
// query's position (KernelCall::MaskRows::rowsAtPositions).
#ifndef ATBX_KERNELS_CPU_ALIBI_TERM_TABLE_H
#define ATBX_KERNELS_CPU_ALIBI_TERM_TABLE_H

#include <cstdint>

#include "kernels/cpu/kernel_call.h"
#include "plan/attention_plan.h"

namespace atbx::kernels::cpu {

// Floats the plan's table takes: heads x (P + K), or 0 where its mask has no such table.
int64_t AlibiTermTableFloats(const plan::AttentionPlan& plan);

// Fills `table` (AlibiTermTableFloats(plan) floats) with plan::AddMaskTerms's terms, so the same fp32 bits as
// Term() key by key (up to the sign of a zero), each head's row on one of `threads` threads; returns the
// view the kernels read it through.
KernelCall::MaskRows FillAlibiTermTable(const plan::AttentionPlan& plan, float* table, int threads);

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_ALIBI_TERM_TABLE_H
