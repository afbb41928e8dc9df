// CreateOperation for the three param structs, and DestroyOperation.
#include "atbx/infer_op_params.h"
#include "atbx/operation.h"
#include "ops/op_spec.h"
#include "ops/operation_impl.h"

namespace atbx {

template <>
Status CreateOperation(const infer::PagedAttentionParam& opParam, Operation** operation, Platform platform) {
    return ops::CreateOperationFor<ops::SpecOf<infer::PagedAttentionParam>::type>(opParam, operation,
                                                                                  platform);
}

template <>
Status CreateOperation(const infer::SelfAttentionParam& opParam, Operation** operation, Platform platform) {
    return ops::CreateOperationFor<ops::SpecOf<infer::SelfAttentionParam>::type>(opParam, operation,
                                                                                 platform);
}

template <>
Status CreateOperation(const infer::ReshapeAndCacheParam& opParam, Operation** operation, Platform platform) {
    return ops::CreateOperationFor<ops::SpecOf<infer::ReshapeAndCacheParam>::type>(opParam, operation,
                                                                                   platform);
}

Status DestroyOperation(Operation* operation) {
    delete operation;
    return Status::Ok();
}

}  // namespace atbx
