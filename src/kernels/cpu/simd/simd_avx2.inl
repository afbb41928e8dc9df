// fp32 vectors of 8 lanes on AVX2 with FMA and F16C: the operations the attention kernel is written in.
// Included inside namespace atbx::kernels::cpu::avx2 by the one translation unit compiled with AVX2 flags.

#include "kernels/cpu/simd/exp2_coefficients.inl"

struct Simd {
    using V = __m256;
    static constexpr int kWidth = 8;

    static V Zero() { return _mm256_setzero_ps(); }
    static V Set(float x) { return _mm256_set1_ps(x); }
    static V Load(const float* p) { return _mm256_loadu_ps(p); }
    // v held in a register for the products that share it (a lane's query vector, used for every key of a
    // DotBlock). Compilers otherwise fold the load into each product as a memory operand, one load per product,
    // and the fp32 dot blocks of 3-4 lanes are then bound by the loads (two per cycle): fp16 GQA decode
    // 0.91-0.98x the time with the queries held. The int16 dot blocks ran 1.04-1.10x the time with theirs held.
    static V InRegister(V v) {
        asm("" : "+x"(v));
        return v;
    }
    static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static V Add(V a, V b) { return _mm256_add_ps(a, b); }
    static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
    static V Or(V a, V b) { return _mm256_or_ps(a, b); }
    static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static V MulAdd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c
    // The second operand when either is NaN, as the x86 instructions do.
    static V Max(V a, V b) { return _mm256_max_ps(a, b); }
    static V Min(V a, V b) { return _mm256_min_ps(a, b); }
    // columns[j] = (rows[0][j], ..., rows[7][j]) for j < 8: an 8 x 8 block transposed in registers (moves only,
    // so the bits of any 32-bit word pass unchanged).
    static void Transpose(const float* const* rows, V* columns) {
        V t[8], u[8];
        for (int k = 0; k < 4; ++k) {
            const V a = _mm256_loadu_ps(rows[2 * k]), b = _mm256_loadu_ps(rows[2 * k + 1]);
            t[2 * k] = _mm256_unpacklo_ps(a, b);  // per 128-bit lane L: a[4L] b[4L] a[4L+1] b[4L+1]
            t[2 * k + 1] = _mm256_unpackhi_ps(a, b);
        }
        const auto low = [](V a, V b) { return _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(b))); };
        const auto high = [](V a, V b) { return _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(b))); };
        for (int k = 0; k < 2; ++k) {  // u[4k + j], lane L: column 4L + j of rows [4k, 4k + 4)
            u[4 * k] = low(t[4 * k], t[4 * k + 2]);
            u[4 * k + 1] = high(t[4 * k], t[4 * k + 2]);
            u[4 * k + 2] = low(t[4 * k + 1], t[4 * k + 3]);
            u[4 * k + 3] = high(t[4 * k + 1], t[4 * k + 3]);
        }
        for (int j = 0; j < 4; ++j) {
            columns[j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x20);
            columns[4 + j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x31);
        }
    }
    // The larger of a and b, or NaN where either is NaN.
    static V MaxNaN(V a, V b) {
        return _mm256_blendv_ps(_mm256_max_ps(a, b), _mm256_add_ps(a, b), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
    }
    static float ReduceAdd(V v) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    // The four sums of a0..a3 into out[0..3].
    static void ReduceAdd4(V a0, V a1, V a2, V a3, float* out) {
        const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
        _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
    }
    // out[l * ldo + k] = the sum of a[l][k]'s lanes for l, k < 4.
    static void ReduceAdd4x4(const V (&a)[4][4], float* out, int64_t ldo) {
        for (int l = 0; l < 4; ++l)
            ReduceAdd4(a[l][0], a[l][1], a[l][2], a[l][3], out + l * ldo);
    }
    static float ReduceMax(V v) {
        __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_max_ps(s, _mm_movehl_ps(s, s));
        s = _mm_max_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    // score + term, or -inf where the term is -inf (a hidden key stays hidden whatever its score, NaN included).
    static V AddMaskTerm(V score, V term) {
        const V hidden = _mm256_cmp_ps(term, _mm256_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);
        return _mm256_blendv_ps(_mm256_add_ps(score, term), term, hidden);
    }
    static bool AnyNaN(V v) { return _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0; }
    static bool AnyZero(V v) { return _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_OQ)) != 0; }
    // Bit i set where lane i is not 0 (NaN included).
    static uint32_t NonZeroBits(V v) {
        return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NEQ_UQ)));
    }
    // Every lane a >= b (false where either is NaN).
    static bool AllAtLeast(V a, V b) { return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ)) == 0xFF; }

    static V LoadHalf(const uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static V Div(V a, V b) { return _mm256_div_ps(a, b); }

    // Rounded to nearest even, as the outputs' dtype conversion (core/float16.h) does; NaN stays NaN.
    static constexpr bool kStoresHalf = true;
    static void StoreHalf(uint16_t* p, V v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    // v rounded to fp16 (nearest even) and back, then to an integer (nearest even): int8 P quantisation.
    static V RoundToHalf(V v) { return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)); }
    static V RoundToInteger(V v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    static void StoreBf16(uint16_t* p, V v) {
        const __m256i bits = _mm256_castps_si256(v);
        const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
        __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
        const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
        rounded = _mm256_blendv_epi8(rounded, quiet, _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
        const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(rounded), _mm256_extracti128_si256(rounded, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packed);
    }
    static V LoadBf16(const uint16_t* p) {
        const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
    }
    static V LoadInt8(const int8_t* p) {
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }

    // e^x to about 2 ulp: x = n ln2 + r, |r| <= ln2 / 2, e^r by a degree-6 polynomial, times 2^n. Below
    // -87.3 (where fp32 results turn subnormal) the result is 0, so e^-inf = 0; NaN stays NaN.
    static V Exp(V x) {
        const V clamped = _mm256_min_ps(_mm256_max_ps(x, Set(-87.33654f)), Set(88.37626f));
        const V n = _mm256_round_ps(_mm256_mul_ps(clamped, Set(1.44269504f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        V r = _mm256_fnmadd_ps(n, Set(0.693359375f), clamped);
        r = _mm256_fnmadd_ps(n, Set(-2.12194440e-4f), r);
        V p = Set(1.9875691500e-4f);
        p = MulAdd(p, r, Set(1.3981999507e-3f));
        p = MulAdd(p, r, Set(8.3334519073e-3f));
        p = MulAdd(p, r, Set(4.1665795894e-2f));
        p = MulAdd(p, r, Set(1.6666665459e-1f));
        p = MulAdd(p, r, Set(5.0000001201e-1f));
        const V y = MulAdd(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, Set(1.0f)));
        const __m256i exponent = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
        V result = _mm256_mul_ps(y, _mm256_castsi256_ps(exponent));
        result = _mm256_blendv_ps(result, Zero(), _mm256_cmp_ps(x, Set(-87.33654f), _CMP_LT_OQ));
        result = _mm256_blendv_ps(result, Set(__builtin_inff()), _mm256_cmp_ps(x, Set(88.37626f), _CMP_GT_OQ));
        return _mm256_blendv_ps(result, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    }

    // 2^y to about 2^-23 relative (kExp2PreciseCoefficients), y below 127.5: 2^n p(f), y = n + f, |f| <= 1/2.
    // Exactly 0 where y < -125 (so 2^-inf = 0), by a blend rather than by underflow, whose results below
    // FLT_MIN would cost a microcode assist each; NaN stays NaN.
    static V Exp2Precise(V y) {
        const V n = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const V f = _mm256_sub_ps(y, n);
        constexpr int kTerms = sizeof(kExp2PreciseCoefficients) / sizeof(float);
        V p = Set(kExp2PreciseCoefficients[kTerms - 1]);
        for (int i = kTerms - 2; i >= 0; --i)
            p = MulAdd(p, f, Set(kExp2PreciseCoefficients[i]));
        const __m256i exponent = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
        const V result = _mm256_mul_ps(p, _mm256_castsi256_ps(exponent));
        return _mm256_blendv_ps(result, Zero(), _mm256_cmp_ps(y, Set(-125.0f), _CMP_LT_OQ));
    }

    // The softmax's fp32 weights e^x, x a logit less its lane's reference maximum (at most 8, or -inf, or NaN):
    // 2^(x log2 e) by Exp2Precise, as on cpu:avx512 (simd_avx512.inl says what its rounding costs).
    static V ExpWeight(V x) { return Exp2Precise(_mm256_mul_ps(x, Set(kLog2e))); }
    static constexpr float kLog2e = 1.44269504f;

    static constexpr bool kBf16Dots = false;  // no bf16 dot products on this path

    // int8 keys' Q.K by int16 pair products (VPMADDWD, every AVX2 CPU has it), below.
    static constexpr bool kInt16Dots = true;
    // int8 values' P.V stays on fp32 FMAs: by VPMADDWD it ran 1.02-1.08x their time on GQA decode (BENCHMARKS.md).
    static constexpr bool kInt16Values = false;
    // int8 QKV in the column runner by int16 pair products (VPMADDWD), below.
    static constexpr bool kInt16Pairs = true;

    // out[c] = x[c] * factor rounded to the nearest integer (ties to even), for c < n, n a multiple of 8; the
    // products lie within the int16 range.
    static void ToInt16(const float* x, float factor, int n, int16_t* out) {
        const V f = Set(factor);
        for (int c = 0; c < n; c += 8) {
            const __m256i rounded = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + c), f));
            const __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(rounded), _mm256_extracti128_si256(rounded, 1));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c), packed);
        }
    }

    // Q.K of int8 key rows by int16 pair products: out[l * ldo + t] = q_l . k_t for NL lanes (int16 query rows
    // `ldq` apart) and keys [0, m) (key row t at keys.Row(t)), channels [0, dim), dim a multiple of 16. VPMADDWD
    // adds two exact int16 x int8 products (each below 2^22) into an int32 lane, VPADDD adds that to the lane's
    // sum, which holds dim / 8 products: exact for any head size below 4096. Blocks of 3-4 lanes take 2 keys
    // (8 sums, 2 widened key rows, a query row and a product in 12 of the 16 registers), narrower ones 4; each
    // block's sums go through reduce(a, out, ldo) (ReduceDots, register_blocks.inl).
    template <int NL, class Rows, class Reduce>
    static void Int16Dots(const int16_t* q, int64_t ldq, const Rows& keys, int32_t m, int dim, float* out,
                          int64_t ldo, Reduce reduce) {
        constexpr int NK = NL <= 2 ? 4 : 2;
        int32_t t = 0;
        for (; t + NK <= m; t += NK) {
            V a[NL][NK];
            Int16DotBlock<NL, NK>(q, ldq, keys, t, dim, a);
            reduce(a, out + t, ldo);
        }
        for (; t < m; ++t) {
            V a[NL][1];
            Int16DotBlock<NL, 1>(q, ldq, keys, t, dim, a);
            for (int l = 0; l < NL; ++l)
                out[l * ldo + t] = ReduceAdd(a[l][0]);
        }
    }

    // a[l][i] = the per-lane int32 sums of q_l . k_(t + i) (Int16Dots), as fp32.
    template <int NL, int NK, class Rows>
    __attribute__((always_inline)) static inline void Int16DotBlock(const int16_t* q, int64_t ldq, const Rows& keys,
                                                                    int32_t t, int dim, V (&a)[NL][NK]) {
        __m256i sum[NL][NK];
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < NK; ++i)
                sum[l][i] = _mm256_setzero_si256();
        }
        for (int c = 0; c < dim; c += 16) {
            __m256i key[NK];
            for (int i = 0; i < NK; ++i)
                key[i] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(keys.Row(t + i) + c)));
            for (int i = 0; i < NK; ++i)
                keys.Request(t + i, c);
            for (int l = 0; l < NL; ++l) {
                const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + l * ldq + c));
                for (int i = 0; i < NK; ++i)
                    sum[l][i] = _mm256_add_epi32(sum[l][i], _mm256_madd_epi16(x, key[i]));
            }
        }
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < NK; ++i)
                a[l][i] = _mm256_cvtepi32_ps(sum[l][i]);
        }
    }

    // Int16 pair products (int8 QKV in the column runner): C[i][v] (=, or with kAddC += times `scale`'s lanes:
    // each lane's P.V output factor) the int32 sum over p < pairs of the word p of A's row i (two int16: a
    // key's channel pair, or a channel's values of two keys) times B's lane words (query channel pairs, or
    // integer weights of two keys), `ldb` words apart. VPMADDWD adds the two exact products, VPADDD that to the
    // sum: exact for int8 QKV's dots (at most 4096 channels of at most 2^14) and P.V tiles (128 keys of weights
    // and values of at most 128). The integer additions have no latency to hide, so blocks of 4 rows x 2
    // vectors or 8 x 1 (8 sums) suffice: GCC 12 stored the 12 sums of blocks of 6 x 2 to the stack at each step
    // (1.09-1.17x the time of a whole int8 QKV prefill).
    template <int NI, int NV, bool kAddC>
    __attribute__((always_inline)) static inline void Int16PairBlock(const char* const* rows, int64_t pairStride,
                                                                     const uint32_t* b, int64_t ldb, int32_t pairs,
                                                                     const float* scale, float* c, int64_t ldc) {
        __m256i acc[NI][NV];
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v)
                acc[i][v] = _mm256_setzero_si256();
        }
        int32_t p = 0;
        do {
            __m256i row[NV];
            for (int v = 0; v < NV; ++v)
                row[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * ldb + v * 8));
            for (int i = 0; i < NI; ++i) {
                int32_t pair;
                __builtin_memcpy(&pair, rows[i] + p * pairStride, sizeof(pair));
                const __m256i x = _mm256_set1_epi32(pair);
                for (int v = 0; v < NV; ++v)
                    acc[i][v] = _mm256_add_epi32(acc[i][v], _mm256_madd_epi16(x, row[v]));
            }
        } while (++p < pairs);
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v) {
                float* out = c + i * ldc + v * 8;
                const V sum = _mm256_cvtepi32_ps(acc[i][v]);
                _mm256_storeu_ps(out, kAddC ? _mm256_fmadd_ps(sum, _mm256_loadu_ps(scale + v * 8), _mm256_loadu_ps(out))
                                            : sum);
            }
        }
    }

    // Rows [0, n) of C over NV vectors (Int16PairBlock), the last rows in blocks of 2 and 1.
    template <int NV, bool kAddC>
    static void Int16PairRows(const char* const* rows, int64_t pairStride, int32_t n, const uint32_t* b, int64_t ldb,
                              int32_t pairs, const float* scale, float* c, int64_t ldc) {
        constexpr int kRows = NV == 1 ? 8 : 4;
        int32_t i = 0;
        for (; i + kRows <= n; i += kRows)
            Int16PairBlock<kRows, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
        for (; i + 2 <= n; i += 2)
            Int16PairBlock<2, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
        if (i < n) Int16PairBlock<1, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
    }

    // Rows [0, n) of C over `vectors` vectors of lanes, in groups of at most 2 vectors.
    template <bool kAddC>
    static void Int16PairProduct(const char* const* rows, int64_t pairStride, int32_t n, const uint32_t* b,
                                 int64_t ldb, int32_t pairs, const float* scale, float* c, int64_t ldc, int vectors) {
        int v0 = 0;
        for (; v0 + 2 <= vectors; v0 += 2)
            Int16PairRows<2, kAddC>(rows, pairStride, n, b + v0 * 8, ldb, pairs, kAddC ? scale + v0 * 8 : nullptr,
                                    c + v0 * 8, ldc);
        if (v0 < vectors)
            Int16PairRows<1, kAddC>(rows, pairStride, n, b + v0 * 8, ldb, pairs, kAddC ? scale + v0 * 8 : nullptr,
                                    c + v0 * 8, ldc);
    }

    // out[c] = in[c] as int16 for c < n, a multiple of 16.
    static void Int8ToInt16(const int8_t* in, int n, int16_t* out) {
        for (int c = 0; c < n; c += 16)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c),
                                _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + c))));
    }

    // out[c] = the word a[c] | b[c] << 16 of two int8 rows as int16 (b null: 0), c < n, in channel order.
    static void Int8PairRow(const int8_t* a, const int8_t* b, int n, uint32_t* out) {
        const __m256i low = _mm256_set1_epi32(0xFFFF);
        int c = 0;
        for (; c + 8 <= n; c += 8) {
            const __m256i first = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + c)));
            const __m256i second =
                b != nullptr ? _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + c)))
                             : _mm256_setzero_si256();
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c),
                                _mm256_or_si256(_mm256_and_si256(first, low), _mm256_slli_epi32(second, 16)));
        }
        for (; c < n; ++c) {
            const auto high = b != nullptr ? static_cast<uint32_t>(static_cast<uint16_t>(b[c])) << 16 : 0u;
            out[c] = static_cast<uint16_t>(a[c]) | high;
        }
    }

    // out[i] = the word first[i] | second[i] << 16 of two vectors of integer-valued floats within int16.
    static void StoreInt16Pairs(V first, V second, uint32_t* out) {
        const __m256i low = _mm256_and_si256(_mm256_cvtps_epi32(first), _mm256_set1_epi32(0xFFFF));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                            _mm256_or_si256(low, _mm256_slli_epi32(_mm256_cvtps_epi32(second), 16)));
    }
};
