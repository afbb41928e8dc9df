// Edits that SelfAttention rule cases make to a valid call: change one param field, one tensor's dims,
// dtype or format, or one host value.
#ifndef ATBX_TESTS_SUPPORT_SA_EDITS_H
#define ATBX_TESTS_SUPPORT_SA_EDITS_H

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

using SaParam = infer::SelfAttentionParam;
using CallEdit = std::function<void(TestCall&)>;

// The valid call of the catalogue named `name` (sa_valid_calls.h).
std::function<TestCall()> Valid(std::string name);

// Validates the call against another platform profile.
CallEdit OnPlatform(Platform platform);
// Changes the call's param.
CallEdit WithParam(std::function<void(SaParam&)> change);

// Sets an input's dims; its data keeps its size (enough for the stages before the memory check).
void SetDims(TestCall& c, std::string_view input, const std::vector<int64_t>& dims);
void SetDim(TestCall& c, std::string_view input, int dim, int64_t value);
// Replaces an input by a tensor of new dims with fresh, non-zero data of its dtype and format.
void Resize(TestCall& c, std::string_view input, const std::vector<int64_t>& dims);
void SetDtype(TestCall& c, std::string_view input, aclDataType dtype);
void SetFormat(TestCall& c, std::string_view input, aclFormat format);
// Replaces an int32/uint32 tensor's values (and dims, if given; default: [values.size()]).
void SetValues(TestCall& c, std::string_view input, const std::vector<int32_t>& values,
               std::vector<int64_t> dims = {});
// Gives the call the outputs InferShape gives for its (changed) inputs.
void RefreshOutputs(TestCall& c);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_SA_EDITS_H
