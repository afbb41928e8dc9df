// ReshapeAndCache planner: turns a validated call into a CacheWritePlan (docs/spec/self_attention.md 4.2,
// docs/spec/DECISIONS.md 19).
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_PLAN_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_PLAN_H

#include "ops/reshape_and_cache/rac_subject.h"
#include "plan/cache_write.h"

namespace atbx::ops::rac {

// The subject must have passed every rule; its pack holds the data. The plan writes the output tensors (the
// caches, which ATB's callers alias to the cache inputs); an output that does not share the cache input's
// memory first receives a copy of it, so that it always holds the whole updated cache.
plan::CacheWritePlan BuildPlan(const RacSubject& subject);

// The same into `plan`, reusing the row storage of the plan it held (Execute plans every call with the slots
// it is given; at 16k tokens a fresh plan's rows are megabytes of new pages each call).
void RebuildPlan(const RacSubject& subject, plan::CacheWritePlan* plan);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_PLAN_H
