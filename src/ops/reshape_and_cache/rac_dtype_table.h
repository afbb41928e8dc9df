// The dtype and format combinations ReshapeAndCache accepts, per mode and profile: atbx's encoding of ATB's
// ini sections [ReshapeAndCacheOperation*] (ops_configs/atb_ops_info.ini). In every section a cache has the
// dtype of the tensor it stores, slotMapping, wins, seqLen and offsetIndex are int32, and every tensor but
// the caches is ND.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_DTYPE_TABLE_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_DTYPE_TABLE_H

#include <span>
#include <string>

#include "ops/reshape_and_cache/rac_subject.h"

namespace atbx::ops::rac {

// One allowed combination: the key's dtype and the value's (ACL_DT_UNDEFINED for the key-only mode).
struct KvDtypes {
    aclDataType key;
    aclDataType value;
};

struct DtypeTable {
    const char* section;  // ATB's ini section the table encodes
    std::span<const KvDtypes> combinations;
    aclFormat cacheFormat;  // ND, or FRACTAL_NZ
};

// The table for the call's param and profile (valid once the param stage passed).
const DtypeTable& TableFor(const RacSubject& subject);

// "float16/float16, int8/int8, bfloat16/bfloat16" (key/value), or "float16, int8, bfloat16" (key only).
std::string CombinationsText(const DtypeTable& table);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_DTYPE_TABLE_H
