// SelfAttention reference tests: calls built from explicit tensors, the softmax-weighted sum the tests'
// direct loops end in, and the comparison of the reference backend with those loops. Nothing here knows how
// atbx plans a call: the tests compute their expected values from docs/spec/self_attention.md 3 themselves.
#ifndef ATBX_TESTS_SA_REFERENCE_SUPPORT_H
#define ATBX_TESTS_SA_REFERENCE_SUPPORT_H

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test::sa_ref {

using Param = infer::SelfAttentionParam;

// Uniform values in [low, high), rounded to the dtype (integers: truncated).
io::HostTensor Uniform(const TensorDesc& desc, double low, double high, std::mt19937_64& rng);
// The given values, rounded to the dtype, in C order.
io::HostTensor Values(const TensorDesc& desc, const std::vector<double>& values);
// int32 tensor of the given shape holding the values.
io::HostTensor Int32s(std::initializer_list<int64_t> dims, const std::vector<int32_t>& values);
// Value of element `offset` of a tensor, as float64.
double At(const io::HostTensor& t, int64_t offset);

// A call of `param` from tensors named by ATB's slot names (every slot the param asks for must be given),
// with outputs of the shape InferShape gives.
TestCall MakeCall(const Param& param, Platform platform, std::map<std::string, io::HostTensor> tensors);

// sum_j softmax(logits)_j * value(j, c) for c in [0, headDimV); -inf logits take no part.
std::vector<double> Attend(const std::vector<double>& logits, int64_t headDimV,
                           const std::function<double(int64_t j, int64_t c)>& value);

// q . k over `dim` channels.
double Dot(int64_t dim, const std::function<double(int64_t c)>& q, const std::function<double(int64_t c)>& k);

// Executes the call on the reference backend (outputs poisoned first) and checks output 0 against `expected`
// (one value per output element): the float64 result within 1e-9 relative, and the stored output equal to it
// rounded to the output dtype.
void ExpectReference(TestCall& call, const std::vector<double>& expected);

// Executes the call on every CPU path this machine has, each forced in turn: each must run the call and meet
// the precision standard against the float64 reference.
void ExpectCpuMeetsStandard(TestCall& call, int64_t headDim, int64_t maxKvLen);

}  // namespace atbx::test::sa_ref

#endif  // ATBX_TESTS_SA_REFERENCE_SUPPORT_H
