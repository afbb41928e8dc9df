// Reference cache writes: exact copies (bit for bit), or the mean of several rows rounded to the cache dtype.
#ifndef ATBX_KERNELS_REF_CACHE_WRITE_REF_H
#define ATBX_KERNELS_REF_CACHE_WRITE_REF_H

#include "plan/cache_write.h"

namespace atbx::kernels::ref {

void ExecuteCacheWrites(const plan::CacheWritePlan& plan);

}  // namespace atbx::kernels::ref

#endif  // ATBX_KERNELS_REF_CACHE_WRITE_REF_H
