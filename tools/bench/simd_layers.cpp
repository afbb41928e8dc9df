// atbx's own SIMD layer (src/kernels/cpu/simd/simd_avx512.inl or simd_avx2.inl, whichever instruction set
// this file is compiled for) against Google Highway (Debian's libhwy-dev, its static target for the same
// flags) on the inner loops of the decode kernel: the measurement behind docs/design.md, "Why intrinsics and
// not Highway". One thread, data in L1 (a tile of 64 keys x 128 channels and 4 query lanes: a GQA 32/8 decode
// step's work per kv head and tile), each loop written once per layer with the kernel's blocking on that
// instruction set (register_blocks.inl: Q.K in blocks of 4 lanes x 4 keys on AVX-512, 4 x 2 on AVX2; P.V in 4
// lanes x 4 or 2 vectors) and the operations each layer offers for it. scripts/simd_layers.sh builds and runs
// it for each vector path the CPU has.
#include <hwy/highway.h>
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <hwy/contrib/math/math-inl.h>

namespace atbx_layer {
#if defined(__AVX512F__)
#include "kernels/cpu/simd/simd_avx512.inl"
#else
#include "kernels/cpu/simd/simd_avx2.inl"
#endif
}  // namespace atbx_layer

namespace {

using Simd = atbx_layer::Simd;
using V = Simd::V;
namespace hn = hwy::HWY_NAMESPACE;
constexpr int kW = Simd::kWidth;
constexpr bool kAvx512 = kW == 16;
constexpr int kBlockKeys = kAvx512 ? 4 : 2;     // keys of a Q.K register block of 4 lanes
constexpr int kBlockVectors = kAvx512 ? 4 : 2;  // vectors of a P.V register block of 4 lanes

constexpr int kLanes = 4;
constexpr int kKeys = 64;
constexpr int kDim = 128;
constexpr double kFlops = 2.0 * kLanes * kKeys * kDim;  // one product (Q.K or P.V) of the tile

// The tile's operands in every dtype the kernels read: queries fp32, bf16 and int16; keys and values fp16,
// bf16 and int8; weights P fp32. Row-major, rows kDim elements apart.
struct Tile {
    std::vector<float> query = std::vector<float>(kLanes * kDim);
    std::vector<uint16_t> queryBf16 = std::vector<uint16_t>(kLanes * kDim);
    std::vector<int16_t> queryInt16 = std::vector<int16_t>(kLanes * kDim);
    std::vector<uint16_t> keysHalf = std::vector<uint16_t>(kKeys * kDim);
    std::vector<uint16_t> keysBf16 = std::vector<uint16_t>(kKeys * kDim);
    std::vector<int8_t> keysInt8 = std::vector<int8_t>(kKeys * kDim);
    std::vector<float> weights = std::vector<float>(kLanes * kKeys);
    std::vector<float> logits = std::vector<float>(kLanes * kKeys);  // a softmax step's, less their maximum
    // The channels, a run-time value as a head size is in the kernel: with a constant the compiler unrolls
    // the channel loops whole and spills their sums (int16 Q.K on AVX2: 1.3x the time).
    int dim = kDim;
};

uint16_t Bf16Bits(float x) {
    return static_cast<uint16_t>(std::bit_cast<uint32_t>(x) >> 16);  // values chosen exact in bf16
}

Tile RandomTile() {
    Tile tile;
    volatile int channels = kDim;
    tile.dim = channels;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::uniform_int_distribution<int> small(-127, 127);
    for (size_t i = 0; i < tile.query.size(); ++i) {
        tile.query[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(unit(rng)) & 0xFFFF0000u);
        tile.queryBf16[i] = Bf16Bits(tile.query[i]);
        tile.queryInt16[i] = static_cast<int16_t>(small(rng) * 200);
    }
    for (size_t i = 0; i < tile.keysHalf.size(); ++i) {
        const float x = std::bit_cast<float>(std::bit_cast<uint32_t>(unit(rng)) & 0xFFFF0000u);
        tile.keysHalf[i] = static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
        tile.keysBf16[i] = Bf16Bits(x);
        tile.keysInt8[i] = static_cast<int8_t>(small(rng));
    }
    for (float& x : tile.logits)
        x = 3.5f * unit(rng) - 3.5f;
    for (float& w : tile.weights)
        w = 0.5f * (unit(rng) + 1.0f);
    return tile;
}

// Rows of a key tile as the kernel's Rows concept reads them (Row(t), Request(t, c)).
template <class Element>
struct KeyRows {
    const Element* data;
    int dim;
    const Element* Row(int32_t t) const { return data + int64_t{t} * dim; }
    void Request(int32_t, int) const {}
};

// ---- Q.K of fp16 keys on fp32 FMAs: scores[l][t] = q_l . k_t.

// scores[l][t..t + kBlockKeys) = the sums of a[l][i]'s lanes, as the kernel's ReduceDots
// (register_blocks.inl) takes them: one 4 x 4 reduction tree on AVX-512, two lanes' two sums at a time on
// AVX2.
template <int NK>
void ReduceBlock(const V (&a)[kLanes][NK], float* out, int64_t ldo) {
    if constexpr (NK == 4) {
        Simd::ReduceAdd4x4(a, out, ldo);
    } else {
        for (int l = 0; l < kLanes; l += 2) {
            float sums[4];
            Simd::ReduceAdd4(a[l][0], a[l][1], a[l + 1][0], a[l + 1][1], sums);
            out[l * ldo] = sums[0];
            out[l * ldo + 1] = sums[1];
            out[(l + 1) * ldo] = sums[2];
            out[(l + 1) * ldo + 1] = sums[3];
        }
    }
}

// Q.K of rows converted to fp32 as they are loaded (load(row, c): kW channels of key row `row`).
template <class Load>
void ConvertedDotsAtbx(const Tile& tile, Load load, float* scores) {
    const int dim = tile.dim;
    for (int t = 0; t < kKeys; t += kBlockKeys) {
        V a[kLanes][kBlockKeys];
        for (auto& row : a)
            std::fill(std::begin(row), std::end(row), Simd::Zero());
        for (int c = 0; c < dim; c += kW) {
            V k[kBlockKeys];
            for (int i = 0; i < kBlockKeys; ++i)
                k[i] = load(t + i, c);
            for (int l = 0; l < kLanes; ++l) {
                const V x = Simd::Load(tile.query.data() + l * dim + c);
                for (int i = 0; i < kBlockKeys; ++i)
                    a[l][i] = Simd::MulAdd(x, k[i], a[l][i]);
            }
        }
        ReduceBlock(a, scores + t, kKeys);
    }
}

void HalfDotsAtbx(const Tile& tile, float* scores) {
    const int dim = tile.dim;
    const auto load = [&tile, dim](int row, int c) {
        return Simd::LoadHalf(tile.keysHalf.data() + row * dim + c);
    };
    ConvertedDotsAtbx(tile, load, scores);
}

void HalfDotsHighway(const Tile& tile, float* scores) {
    const int dim = tile.dim;
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const auto* keys = reinterpret_cast<const hwy::float16_t*>(tile.keysHalf.data());
    const int step = static_cast<int>(hn::Lanes(df));
    for (int t = 0; t < kKeys; t += kBlockKeys) {
        hn::Vec<decltype(df)> a[kLanes][kBlockKeys];
        for (auto& row : a)
            std::fill(std::begin(row), std::end(row), hn::Zero(df));
        for (int c = 0; c < dim; c += step) {
            hn::Vec<decltype(df)> k[kBlockKeys];
            for (int i = 0; i < kBlockKeys; ++i)
                k[i] = hn::PromoteTo(df, hn::LoadU(dh, keys + (t + i) * dim + c));
            for (int l = 0; l < kLanes; ++l) {
                const auto x = hn::LoadU(df, tile.query.data() + l * dim + c);
                for (int i = 0; i < kBlockKeys; ++i)
                    a[l][i] = hn::MulAdd(x, k[i], a[l][i]);
            }
        }
        for (int l = 0; l < kLanes; ++l) {
            for (int i = 0; i < kBlockKeys; ++i)
                scores[l * kKeys + t + i] = hn::GetLane(hn::SumOfLanes(df, a[l][i]));
        }
    }
}

// ---- Q.K of bf16 keys: AVX512-BF16 dot products on AVX-512, keys widened to fp32 on AVX2 (atbx); Highway's
// widening multiply-accumulate.

// ReduceBlock as the dot blocks take their reduction.
constexpr auto kReduce = [](const V (&a)[kLanes][kBlockKeys], float* out, int64_t ldo) {
    ReduceBlock(a, out, ldo);
};

void Bf16DotsAtbx(const Tile& tile, float* scores) {
    const int dim = tile.dim;
#if defined(__AVX512F__)
    Simd::Bf16Dots<kLanes>(tile.queryBf16.data(), dim, KeyRows<uint16_t>{tile.keysBf16.data(), dim}, kKeys,
                           dim, scores, kKeys, kReduce);
#else
    const auto load = [&tile, dim](int row, int c) {
        return Simd::LoadBf16(tile.keysBf16.data() + row * dim + c);
    };
    ConvertedDotsAtbx(tile, load, scores);
#endif
}

// Q.K by Highway's widening multiply-accumulate: pairs of narrow elements (din) into sums of wide ones
// (dsum), two sum vectors per dot as the operation asks. key(row, c): the narrow vector of key row `row` at
// channel c; total(a, b): the dot's two sum vectors as one fp32 sum.
template <class DSum, class DIn, class Narrow, class Key, class Total>
void WideningDotsHighway(DSum dsum, DIn din, int dim, const Narrow* query, Key key, Total total,
                         float* scores) {
    const int step = static_cast<int>(hn::Lanes(din));
    for (int t = 0; t < kKeys; t += kBlockKeys) {
        hn::Vec<DSum> a[kLanes][kBlockKeys], b[kLanes][kBlockKeys];
        for (int l = 0; l < kLanes; ++l) {
            std::fill(std::begin(a[l]), std::end(a[l]), hn::Zero(dsum));
            std::fill(std::begin(b[l]), std::end(b[l]), hn::Zero(dsum));
        }
        for (int c = 0; c < dim; c += step) {
            hn::Vec<DIn> k[kBlockKeys];
            for (int i = 0; i < kBlockKeys; ++i)
                k[i] = key(t + i, c);
            for (int l = 0; l < kLanes; ++l) {
                const auto x = hn::LoadU(din, query + l * dim + c);
                for (int i = 0; i < kBlockKeys; ++i)
                    a[l][i] = hn::ReorderWidenMulAccumulate(dsum, x, k[i], a[l][i], b[l][i]);
            }
        }
        const hn::ScalableTag<float> df;
        for (int l = 0; l < kLanes; ++l) {
            for (int i = 0; i < kBlockKeys; ++i)
                scores[l * kKeys + t + i] = hn::GetLane(hn::SumOfLanes(df, total(a[l][i], b[l][i])));
        }
    }
}

void Bf16DotsHighway(const Tile& tile, float* scores) {
    const int dim = tile.dim;
    const hn::ScalableTag<float> df;
    const hn::Repartition<hwy::bfloat16_t, decltype(df)> dbf;
    const auto* keys = reinterpret_cast<const hwy::bfloat16_t*>(tile.keysBf16.data());
    const auto key = [&](int row, int c) { return hn::LoadU(dbf, keys + row * dim + c); };
    const auto total = [](auto a, auto b) { return hn::Add(a, b); };
    WideningDotsHighway(df, dbf, dim, reinterpret_cast<const hwy::bfloat16_t*>(tile.queryBf16.data()), key,
                        total, scores);
}

// ---- Q.K of int8 keys with an int16 query: int16 dot products (atbx: VPDPWSSD with AVX512-VNNI, VPMADDWD
// and an add on AVX2), Highway's widening multiply-accumulate of int16.

void Int8DotsAtbx(const Tile& tile, float* scores) {
    const int dim = tile.dim;
    Simd::Int16Dots<kLanes>(tile.queryInt16.data(), dim, KeyRows<int8_t>{tile.keysInt8.data(), dim}, kKeys,
                            dim, scores, kKeys, kReduce);
}

void Int8DotsHighway(const Tile& tile, float* scores) {
    const int dim = tile.dim;
    const hn::ScalableTag<int32_t> di32;
    const hn::Repartition<int16_t, decltype(di32)> di16;
    const hn::Rebind<int8_t, decltype(di16)> di8;
    const auto key = [&](int row, int c) {
        return hn::PromoteTo(di16, hn::LoadU(di8, tile.keysInt8.data() + row * dim + c));
    };
    const auto total = [](auto a, auto b) {
        return hn::ConvertTo(hn::ScalableTag<float>(), hn::RearrangeToOddPlusEven(a, b));
    };
    WideningDotsHighway(di32, di16, dim, tile.queryInt16.data(), key, total, scores);
}

// ---- P.V of fp16 values on fp32 FMAs: acc[l][c] = sum_t p[l][t] v_t[c] (the key rows serve as values).

void HalfAccumulateAtbx(const Tile& tile, float* acc) {
    const int dim = tile.dim;
    for (int c0 = 0; c0 < dim; c0 += kBlockVectors * kW) {
        V a[kLanes][kBlockVectors];
        for (auto& row : a)
            std::fill(std::begin(row), std::end(row), Simd::Zero());
        for (int t = 0; t < kKeys; ++t) {
            V v[kBlockVectors];
            for (int j = 0; j < kBlockVectors; ++j)
                v[j] = Simd::LoadHalf(tile.keysHalf.data() + t * dim + c0 + kW * j);
            for (int l = 0; l < kLanes; ++l) {
                const V p = Simd::Set(tile.weights[l * kKeys + t]);
                for (int j = 0; j < kBlockVectors; ++j)
                    a[l][j] = Simd::MulAdd(p, v[j], a[l][j]);
            }
        }
        for (int l = 0; l < kLanes; ++l) {
            for (int j = 0; j < kBlockVectors; ++j)
                Simd::Store(acc + l * dim + c0 + kW * j, a[l][j]);
        }
    }
}

void HalfAccumulateHighway(const Tile& tile, float* acc) {
    const int dim = tile.dim;
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const auto* values = reinterpret_cast<const hwy::float16_t*>(tile.keysHalf.data());
    const int step = static_cast<int>(hn::Lanes(df));
    for (int c0 = 0; c0 < dim; c0 += kBlockVectors * step) {
        hn::Vec<decltype(df)> a[kLanes][kBlockVectors];
        for (auto& row : a)
            std::fill(std::begin(row), std::end(row), hn::Zero(df));
        for (int t = 0; t < kKeys; ++t) {
            hn::Vec<decltype(df)> v[kBlockVectors];
            for (int j = 0; j < kBlockVectors; ++j)
                v[j] = hn::PromoteTo(df, hn::LoadU(dh, values + t * dim + c0 + step * j));
            for (int l = 0; l < kLanes; ++l) {
                const auto p = hn::Set(df, tile.weights[l * kKeys + t]);
                for (int j = 0; j < kBlockVectors; ++j)
                    a[l][j] = hn::MulAdd(p, v[j], a[l][j]);
            }
        }
        for (int l = 0; l < kLanes; ++l) {
            for (int j = 0; j < kBlockVectors; ++j)
                hn::StoreU(a[l][j], df, acc + l * dim + c0 + step * j);
        }
    }
}

// ---- The softmax's exp of the tile's scores, in place.

void ExpAtbx(const Tile& tile, float* out) {
    for (int i = 0; i < kLanes * kKeys; i += kW)
        Simd::Store(out + i, Simd::Exp(Simd::Load(tile.logits.data() + i)));
}

void ExpHighway(const Tile& tile, float* out) {
    const hn::ScalableTag<float> df;
    const int step = static_cast<int>(hn::Lanes(df));
    for (int i = 0; i < kLanes * kKeys; i += step)
        hn::StoreU(hn::Exp(df, hn::LoadU(df, tile.logits.data() + i)), df, out + i);
}

// One loop of the tile in both layers: its outputs (floats) and FLOPs (0: not counted).
struct Loop {
    const char* name;
    size_t outputs;
    double flops;
    void (*atbx)(const Tile&, float*);
    void (*highway)(const Tile&, float*);
};

constexpr Loop kLoops[] = {
    {"Q.K fp16 keys, fp32 FMA", kLanes* kKeys, kFlops, HalfDotsAtbx, HalfDotsHighway},
    {"Q.K bf16 keys", kLanes* kKeys, kFlops, Bf16DotsAtbx, Bf16DotsHighway},
    {"Q.K int8 keys, int16 query", kLanes* kKeys, kFlops, Int8DotsAtbx, Int8DotsHighway},
    {"P.V fp16 values, fp32 FMA", kLanes* kDim, kFlops, HalfAccumulateAtbx, HalfAccumulateHighway},
    {"exp of the tile's 256 logits", kLanes* kKeys, 0.0, ExpAtbx, ExpHighway},
};

// Best nanoseconds per call of fn over `spells` spells of about 0.2 s each.
template <class Fn>
double BestNanoseconds(Fn fn, int spells) {
    using Clock = std::chrono::steady_clock;
    double best = 1e30;
    for (int spell = 0; spell < spells; ++spell) {
        int64_t calls = 0;
        const auto start = Clock::now();
        double elapsed = 0.0;
        while (elapsed < 0.2) {
            for (int i = 0; i < 256; ++i)
                fn();
            calls += 256;
            elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        }
        best = std::min(best, elapsed * 1e9 / static_cast<double>(calls));
    }
    return best;
}

double MaxRelativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0.0, scale = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
        scale = std::max(scale, std::fabs(static_cast<double>(a[i])));
    }
    return scale > 0.0 ? worst / scale : worst;
}

// Times one loop in both layers; prints the row and checks that the two computed the same values.
bool Row(const Loop& loop, const Tile& tile, int spells) {
    std::vector<float> ours(loop.outputs), theirs(loop.outputs);
    loop.atbx(tile, ours.data());
    loop.highway(tile, theirs.data());
    const double difference = MaxRelativeDifference(ours, theirs);
    volatile float sink = 0.0f;
    const auto timed = [&](void (*fn)(const Tile&, float*), std::vector<float>& out) {
        return BestNanoseconds(
            [&] {
                fn(tile, out.data());
                sink = sink + out[0];
            },
            spells);
    };
    const double atbxNs = timed(loop.atbx, ours), highwayNs = timed(loop.highway, theirs);
    char atbxRate[32] = "—", highwayRate[32] = "—";
    if (loop.flops > 0.0) {
        std::snprintf(atbxRate, sizeof atbxRate, "%.1f", loop.flops / atbxNs);
        std::snprintf(highwayRate, sizeof highwayRate, "%.1f", loop.flops / highwayNs);
    }
    std::printf("| %s | %.1f | %s | %.1f | %s | %.2fx | %.1e |\n", loop.name, atbxNs, atbxRate, highwayNs,
                highwayRate, highwayNs / atbxNs, difference);
    return difference < 1e-5;
}

}  // namespace

int main(int argc, char** argv) {
    const bool supported =
        kAvx512 ? __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vnni")
                : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!supported) {
        std::fprintf(stderr, "simd_layers: this CPU lacks %s\n",
                     kAvx512 ? "AVX-512 (F, BW) with AVX512-BF16 and AVX512-VNNI" : "AVX2 with FMA");
        return 2;
    }
    const int spells = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const Tile tile = RandomTile();
    std::printf(
        "atbx's layer for %s against Highway %d.%d.%d, static target %s; one thread, a tile of %d keys x %d "
        "channels, %d lanes\n\n",
        kAvx512 ? "AVX-512" : "AVX2", HWY_MAJOR, HWY_MINOR, HWY_PATCH, hwy::TargetName(HWY_STATIC_TARGET),
        kKeys, kDim, kLanes);
    std::printf(
        "| loop | atbx ns | atbx GFLOP/s | Highway ns | Highway GFLOP/s | Highway / atbx time | max rel. "
        "diff |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    bool same = true;
    for (const Loop& loop : kLoops)
        same = Row(loop, tile, spells) && same;
    if (!same) std::fprintf(stderr, "simd_layers: the two layers computed different values\n");
    return same ? 0 : 1;
}
