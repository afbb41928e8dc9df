#include "ops/reshape_and_cache/rac_dtype_table.h"

#include <array>

#include "core/str_cat.h"

namespace atbx::ops::rac {
namespace {

constexpr aclDataType kF16 = ACL_FLOAT16;
constexpr aclDataType kBf16 = ACL_BF16;
constexpr aclDataType kI8 = ACL_INT8;
constexpr aclDataType kNone = ACL_DT_UNDEFINED;

constexpr std::array<KvDtypes, 3> kSameDtype = {{{kF16, kF16}, {kI8, kI8}, {kBf16, kBf16}}};
constexpr std::array<KvDtypes, 6> kA2Nz = {
    {{kI8, kF16}, {kI8, kBf16}, {kF16, kF16}, {kBf16, kBf16}, {kF16, kBf16}, {kBf16, kF16}}};
constexpr std::array<KvDtypes, 2> kRope = {{{kF16, kF16}, {kBf16, kBf16}}};
constexpr std::array<KvDtypes, 3> kKeyOnly = {{{kF16, kNone}, {kI8, kNone}, {kBf16, kNone}}};

const DtypeTable kNd{"ReshapeAndCacheOperation", kSameDtype, ACL_FORMAT_ND};
const DtypeTable kNzProducts{"ReshapeAndCacheOperationAtlas300", kSameDtype, ACL_FORMAT_FRACTAL_NZ};
const DtypeTable kNzA2{"ReshapeAndCacheOperationAtlas800A2NZ", kA2Nz, ACL_FORMAT_FRACTAL_NZ};
const DtypeTable kKvHead{"ReshapeAndCacheOperationKvHeadCompressAlibi", kSameDtype, ACL_FORMAT_ND};
const DtypeTable kKvHeadRope{"ReshapeAndCacheOperationKvHeadCompressRope", kRope, ACL_FORMAT_ND};
const DtypeTable kSiso{"ReshapeAndCacheOperationSISO", kKeyOnly, ACL_FORMAT_ND};

}  // namespace

const DtypeTable& TableFor(const RacSubject& s) {
    if (s.platform == Platform::kAtlasInference || s.platform == Platform::kAtlasTraining) return kNzProducts;
    if (s.KeyOnly()) return kSiso;
    if (s.A2Nz()) return kNzA2;
    if (s.Rope()) return kKvHeadRope;
    if (s.Compressed()) return kKvHead;
    return kNd;
}

std::string CombinationsText(const DtypeTable& table) {
    std::string text;
    for (const KvDtypes& c : table.combinations) {
        if (!text.empty()) text += ", ";
        text += DataTypeName(c.key);
        if (c.value != ACL_DT_UNDEFINED) text += core::StrCat('/', DataTypeName(c.value));
    }
    return text;
}

}  // namespace atbx::ops::rac
