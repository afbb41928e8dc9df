// A tiny PagedAttention decode through an installed atbx: 2 sequences, 4 query heads over 2 KV heads,
// head size 8, block size 16. The keys are all zero, so every score is 0 and the output of each head is the
// mean of the values it sees; the program checks that and prints "ok".
#include <atbx/atbx.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

atbx::Tensor Bind(void* data, uint64_t bytes, atbx::aclDataType dtype, std::vector<int64_t> shape) {
    atbx::Tensor t;
    t.desc.dtype = dtype;
    t.desc.format = atbx::ACL_FORMAT_ND;
    t.desc.shape.dimNum = shape.size();
    for (size_t i = 0; i < shape.size(); ++i)
        t.desc.shape.dims[i] = shape[i];
    t.deviceData = data;
    t.hostData = data;
    t.dataSize = bytes;
    return t;
}

}  // namespace

int main() {
    constexpr int kBatch = 2, kHeads = 4, kKvHeads = 2, kHeadSize = 8, kBlockSize = 16, kBlocks = 4;
    const std::vector<int32_t> contextLens = {3, 6};
    const std::vector<int32_t> blockTables = {0, 3, 1, 2};  // [batch, 2]
    // fp16 bit patterns: queries 1.0 (0x3C00), keys 0.0; the value of cache row r is r % 16.
    std::vector<uint16_t> query(kBatch * kHeads * kHeadSize, 0x3C00);
    std::vector<uint16_t> keys(kBlocks * kBlockSize * kKvHeads * kHeadSize, 0);
    std::vector<uint16_t> values(keys.size());
    const uint16_t kSmallInts[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700,
                                   0x4800, 0x4880, 0x4900, 0x4980, 0x4A00, 0x4A80, 0x4B00, 0x4B80};
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = kSmallInts[(i / (kKvHeads * kHeadSize)) % 16];
    std::vector<uint16_t> out(query.size(), 0x7E00);

    atbx::infer::PagedAttentionParam param;
    param.headNum = kHeads;
    param.kvHeadNum = kKvHeads;
    param.qkScale = 0.35f;
    atbx::VariantPack pack;
    pack.inTensors = {
        Bind(query.data(), query.size() * 2, atbx::ACL_FLOAT16, {kBatch, kHeads, kHeadSize}),
        Bind(keys.data(), keys.size() * 2, atbx::ACL_FLOAT16, {kBlocks, kBlockSize, kKvHeads, kHeadSize}),
        Bind(values.data(), values.size() * 2, atbx::ACL_FLOAT16, {kBlocks, kBlockSize, kKvHeads, kHeadSize}),
        Bind(const_cast<int32_t*>(blockTables.data()), blockTables.size() * 4, atbx::ACL_INT32, {kBatch, 2}),
        Bind(const_cast<int32_t*>(contextLens.data()), contextLens.size() * 4, atbx::ACL_INT32, {kBatch}),
    };
    pack.outTensors = {Bind(out.data(), out.size() * 2, atbx::ACL_FLOAT16, {kBatch, kHeads, kHeadSize})};

    atbx::Operation* op = nullptr;
    atbx::Status st = atbx::CreateOperation(param, &op);
    atbx::Context context;
    uint64_t workspaceSize = 0;
    if (st == atbx::NO_ERROR) st = op->Setup(pack, workspaceSize, &context);
    if (st == atbx::NO_ERROR) st = op->Execute(pack, nullptr, workspaceSize, &context);
    atbx::DestroyOperation(op);
    if (st != atbx::NO_ERROR) {
        std::fprintf(stderr, "%s\n", st.ToString().c_str());
        return 1;
    }
    // Sequence 0 sees rows 0, 1, 2 of block 0: mean 1. Sequence 1 sees the first 6 rows of block 1 (values
    // 0..5): mean 2.5.
    const double expected[kBatch] = {1.0, 2.5};
    for (int b = 0; b < kBatch; ++b) {
        for (int i = 0; i < kHeads * kHeadSize; ++i) {
            const uint16_t bits = out[b * kHeads * kHeadSize + i];
            const int exponent = (bits >> 10) & 0x1F;
            const double value =
                exponent == 0 ? 0.0 : std::ldexp(1.0 + (bits & 0x3FF) / 1024.0, exponent - 15);
            if (std::fabs(value - expected[b]) > 1e-2) {
                std::fprintf(stderr, "batch %d element %d: %g, expected %g\n", b, i, value, expected[b]);
                return 1;
            }
        }
    }
    std::printf("atbx %s: PagedAttention ok\n", ATBX_VERSION_STRING);
    return 0;
}
