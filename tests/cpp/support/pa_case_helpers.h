// Small edits of PagedAttention test calls, for rule cases and ATB's CSV rows: start from a catalogued valid
// call, change one thing.
#ifndef ATBX_TESTS_SUPPORT_PA_CASE_HELPERS_H
#define ATBX_TESTS_SUPPORT_PA_CASE_HELPERS_H

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/pa_calls.h"
#include "support/test_call.h"

namespace atbx::test {

using PaParam = infer::PagedAttentionParam;
using CallEdit = std::function<void(TestCall&)>;

// The valid catalogue call `name`, as a RuleCase factory.
inline std::function<TestCall()> From(std::string name) {
    return [name] { return PaCall(name); };
}

// Changes the param (for param rules the tensors no longer matter).
template <class F>
CallEdit EditParam(F change) {
    return [change](TestCall& c) { change(c.Param<PaParam>()); };
}

inline void SetDim(TestCall& c, const char* input, int dim, int64_t value) {
    c.In(input).desc.shape.dims[dim] = value;
}

// Sets the dims of an input; with `resize` its bytes follow the new shape (else they stay, which is enough
// for a stage that runs before the memory stage, or for a smaller shape).
inline void SetShape(TestCall& c, const char* input, std::initializer_list<int64_t> dims,
                     bool resize = false) {
    io::HostTensor& t = c.In(input);
    t.desc.shape = Desc(t.desc.dtype, dims).shape;
    if (resize) t.bytes.resize(ElementCount(t.desc) * DataTypeSize(t.desc.dtype), 0x11);
}

// Sets one dim of both caches.
inline void SetCacheDim(TestCall& c, int dim, int64_t value) {
    SetDim(c, "keyCache", dim, value);
    if (c.IndexOf("valueCache") >= 0) SetDim(c, "valueCache", dim, value);
}

// Sets the query's and the output's rows (what the host values say must run).
inline void SetRows(TestCall& c, int64_t rows) {
    SetDim(c, "query", 0, rows);
    c.outputs[0].desc.shape.dims[0] = rows;
}

// Sets the head size of query, caches and output alike.
inline void SetHeadSize(TestCall& c, int64_t headSize) {
    SetDim(c, "query", 2, headSize);
    SetCacheDim(c, 3, headSize);
    c.outputs[0].desc.shape.dims[2] = headSize;
}

inline void SetInt32(TestCall& c, const char* input, size_t index, int32_t value) {
    Elements<int32_t>(c.In(input))[index] = value;
}

inline void SetDtype(TestCall& c, const char* input, aclDataType dtype) {
    c.In(input).desc.dtype = dtype;
}

inline void SetFormat(TestCall& c, const char* input, aclFormat format) {
    c.In(input).desc.format = format;
}

// Appends a dim of 1 to an input.
inline void AddDim(TestCall& c, const char* input) {
    Dims& shape = c.In(input).desc.shape;
    shape.dims[shape.dimNum++] = 1;
}

// Drops an input's last dim.
inline void DropDim(TestCall& c, const char* input) {
    --c.In(input).desc.shape.dimNum;
}

// Several edits in a row.
inline CallEdit Edits(std::initializer_list<CallEdit> edits) {
    std::vector<CallEdit> all(edits);
    return [all](TestCall& c) {
        for (const CallEdit& e : all)
            e(c);
    };
}

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_PA_CASE_HELPERS_H
