// OpParam: the param of one call of any of the three ops, and the op's name. Case files, the CLI and the
// tests carry a call's param as this; io/param_json.h converts it from and to case-file JSON.
#ifndef ATBX_IO_OP_PARAM_H
#define ATBX_IO_OP_PARAM_H

#include <variant>

#include "atbx/infer_op_params.h"

namespace atbx::io {

using OpParam =
    std::variant<infer::PagedAttentionParam, infer::SelfAttentionParam, infer::ReshapeAndCacheParam>;

// "PagedAttention", "SelfAttention", "ReshapeAndCache".
const char* OpName(const OpParam& param);

}  // namespace atbx::io

#endif  // ATBX_IO_OP_PARAM_H
