// BenchCall: one operation call a benchmark times (one layer of a model): the param, the tensors it owns, and
// the variant pack viewing them. Tensors are filled quickly with random values (a repeated random pattern:
// benchmark data needs realistic values, not independent ones).
#ifndef ATBX_TOOLS_ATBX_BENCH_BENCH_CALL_H
#define ATBX_TOOLS_ATBX_BENCH_BENCH_CALL_H

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "atbx/types.h"
#include "io/op_param.h"
#include "perf/page_buffer.h"

namespace atbx::cli::bench {

TensorDesc Desc(aclDataType dtype, std::initializer_list<int64_t> dims);
int64_t ByteSize(const TensorDesc& desc);

class BenchCall {
  public:
    // The tensors lie on `pages`.
    BenchCall(io::OpParam param, perf::Pages pages) : param_(std::move(param)), pages_(pages) {}

    // Appends an input of random values uniform in [low, high) (integers: rounded) and returns its bytes.
    uint8_t* AddRandomInput(const TensorDesc& desc, double low, double high, uint64_t seed);
    // Appends an input the caller fills through the returned pointer (zeroed).
    uint8_t* AddInput(const TensorDesc& desc, bool host = false);
    // Appends a 1-D int32 input with host data (lengths).
    void AddHostInt32(const std::vector<int32_t>& values);
    void AddOutput(const TensorDesc& desc);
    // Appends an output that is input `index` itself (ATB's in-place cache writes).
    void AddAliasOutput(int index);

    const io::OpParam& param() const { return param_; }
    const VariantPack& pack() const { return pack_; }
    int64_t AllocatedBytes() const { return allocated_; }

  private:
    uint8_t* Allocate(int64_t bytes);

    io::OpParam param_;
    perf::Pages pages_;
    std::vector<perf::PageBuffer> buffers_;
    VariantPack pack_;
    int64_t allocated_ = 0;
};

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_BENCH_CALL_H
