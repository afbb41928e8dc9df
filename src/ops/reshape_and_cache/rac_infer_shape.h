// ReshapeAndCache output descriptors: the caches, updated in place (keyCache, then valueCache).
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_INFER_SHAPE_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_INFER_SHAPE_H

#include <vector>

#include "ops/reshape_and_cache/rac_subject.h"

namespace atbx::ops::rac {

std::vector<TensorDesc> InferOutputs(const RacSubject& subject);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_INFER_SHAPE_H
