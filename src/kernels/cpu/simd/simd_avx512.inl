// fp32 vectors of 16 lanes on AVX-512 (F, BW, DQ, VL) with F16C: the operations the attention kernel is
// written in. Included inside namespace atbx::kernels::cpu::avx512 by the one translation unit compiled with
// AVX-512 flags.

#include "kernels/cpu/simd/exp2_coefficients.inl"

struct Simd {
    using V = __m512;
    static constexpr int kWidth = 16;

    static V Zero() { return _mm512_setzero_ps(); }
    static V Set(float x) { return _mm512_set1_ps(x); }
    static V Load(const float* p) { return _mm512_loadu_ps(p); }
    static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V Add(V a, V b) { return _mm512_add_ps(a, b); }
    static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
    static V Or(V a, V b) { return _mm512_or_ps(a, b); }
    static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V MulAdd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c
    // The second operand when either is NaN, as the x86 instructions do.
    static V Max(V a, V b) { return _mm512_max_ps(a, b); }
    static V Min(V a, V b) { return _mm512_min_ps(a, b); }
    // columns[j] = (rows[0][j], ..., rows[15][j]) for j < 16: a 16 x 16 block transposed in registers (moves
    // only, so the bits of any 32-bit word pass unchanged).
    static void Transpose(const float* const* rows, V* columns) {
        V t[16], u[16];
        for (int k = 0; k < 8; ++k) {
            const V a = _mm512_loadu_ps(rows[2 * k]), b = _mm512_loadu_ps(rows[2 * k + 1]);
            t[2 * k] = _mm512_unpacklo_ps(a, b);  // per 128-bit lane L: a[4L] b[4L] a[4L+1] b[4L+1]
            t[2 * k + 1] = _mm512_unpackhi_ps(a, b);
        }
        const auto low = [](V a, V b) { return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b))); };
        const auto high = [](V a, V b) { return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b))); };
        for (int k = 0; k < 4; ++k) {  // u[4k + j], lane L: column 4L + j of rows [4k, 4k + 4)
            u[4 * k] = low(t[4 * k], t[4 * k + 2]);
            u[4 * k + 1] = high(t[4 * k], t[4 * k + 2]);
            u[4 * k + 2] = low(t[4 * k + 1], t[4 * k + 3]);
            u[4 * k + 3] = high(t[4 * k + 1], t[4 * k + 3]);
        }
        for (int j = 0; j < 4; ++j) {  // the 4 x 4 blocks of 128 bits of u[j], u[4 + j], u[8 + j], u[12 + j]
            const V v0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88), v1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
            const V v2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
            const V v3 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
            columns[j] = _mm512_shuffle_f32x4(v0, v2, 0x88);
            columns[4 + j] = _mm512_shuffle_f32x4(v1, v3, 0x88);
            columns[8 + j] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
            columns[12 + j] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
        }
    }
    // The larger of a and b, or NaN where either is NaN.
    static V MaxNaN(V a, V b) {
        return _mm512_mask_mov_ps(_mm512_max_ps(a, b), _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q), _mm512_add_ps(a, b));
    }
    static float ReduceAdd(V v) { return _mm512_reduce_add_ps(v); }
    // The four sums of a0..a3 into out[0..3].
    static void ReduceAdd4(V a0, V a1, V a2, V a3, float* out) {
        const auto fold = [](V v) { return _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1)); };
        const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(fold(a0), fold(a1)), _mm256_hadd_ps(fold(a2), fold(a3)));
        _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
    }
    // out[l * ldo + k] = the sum of a[l][k]'s lanes for l, k < 4: one reduction tree for the 16 sums (45
    // shuffles and adds, where four ReduceAdd4 take about 80 operations).
    static void ReduceAdd4x4(const V (&a)[4][4], float* out, int64_t ldo) {
        Store4x4(ReduceTree4x4(a, [](V x, V y) { return _mm512_add_ps(x, y); }), out, ldo);
    }
    // ReduceAdd4x4's tree with the sum `add` (of fp32, or of int32 lanes held as their bits: the shuffles and
    // blends move bits only): halves, then quarters, then pairs within a quarter, after each level every vector
    // holding partial sums of twice as many inputs. Input i = 4k + l is a[l][k]; the result's element 4l + k is
    // its sum. The halves level takes [x.lo | y.hi] + [x.hi | y.lo]: a blend, which any vector pipe runs, in
    // place of one of two shuffles (the same sums; a standalone 4 x 4 block 1.0-1.07x faster on Zen 4).
    template <class Add>
    static V ReduceTree4x4(const V (&a)[4][4], Add add) {
        V half[8], quarter[4], pair[2];
        for (int i = 0; i < 8; ++i) {
            const V x = a[(2 * i) % 4][(2 * i) / 4], y = a[(2 * i + 1) % 4][(2 * i + 1) / 4];
            half[i] = add(_mm512_mask_blend_ps(0xFF00, x, y), _mm512_shuffle_f32x4(x, y, 0x4E));
        }
        for (int j = 0; j < 4; ++j) {
            const V x = half[2 * j], y = half[2 * j + 1];
            quarter[j] = add(_mm512_shuffle_f32x4(x, y, 0x88), _mm512_shuffle_f32x4(x, y, 0xDD));
        }
        for (int k = 0; k < 2; ++k) {
            const V x = quarter[2 * k], y = quarter[2 * k + 1];
            pair[k] = add(_mm512_shuffle_ps(x, y, 0x44), _mm512_shuffle_ps(x, y, 0xEE));
        }
        return add(_mm512_shuffle_ps(pair[0], pair[1], 0x88), _mm512_shuffle_ps(pair[0], pair[1], 0xDD));
    }
    // out[l * ldo + k] = sums[4l + k] for l, k < 4.
    static void Store4x4(V sums, float* out, int64_t ldo) {
        _mm_storeu_ps(out, _mm512_castps512_ps128(sums));
        _mm_storeu_ps(out + ldo, _mm512_extractf32x4_ps(sums, 1));
        _mm_storeu_ps(out + 2 * ldo, _mm512_extractf32x4_ps(sums, 2));
        _mm_storeu_ps(out + 3 * ldo, _mm512_extractf32x4_ps(sums, 3));
    }
    static float ReduceMax(V v) { return _mm512_reduce_max_ps(v); }
    // score + term, or -inf where the term is -inf (a hidden key stays hidden whatever its score, NaN included).
    static V AddMaskTerm(V score, V term) {
        const __mmask16 hidden = _mm512_cmp_ps_mask(term, _mm512_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);
        return _mm512_mask_mov_ps(_mm512_add_ps(score, term), hidden, term);
    }
    static bool AnyNaN(V v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) != 0; }
    static bool AnyZero(V v) { return _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_OQ) != 0; }
    // Bit i set where lane i is not 0 (NaN included).
    static uint32_t NonZeroBits(V v) { return _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_UQ); }
    // Every lane a >= b (false where either is NaN).
    static bool AllAtLeast(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ) == 0xFFFF; }

    static V LoadHalf(const uint16_t* p) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    static V LoadBf16(const uint16_t* p) {
        const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
    }
    static V LoadInt8(const int8_t* p) {
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    static V Div(V a, V b) { return _mm512_div_ps(a, b); }

    // Rounded to nearest even, as the outputs' dtype conversion (core/float16.h) does; NaN stays NaN.
    static constexpr bool kStoresHalf = true;
    static void StoreHalf(uint16_t* p, V v) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    // v rounded to fp16 (nearest even) and back, then to an integer (nearest even): int8 P quantisation.
    static V RoundToHalf(V v) {
        return _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    static V RoundToInteger(V v) { return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    static void StoreBf16(uint16_t* p, V v) {
        const __m512i bits = _mm512_castps_si512(v);
        const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
        __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF))), 16);
        const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        rounded = _mm512_mask_mov_epi32(rounded, nan, _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(rounded));
    }

    // e^x to about 2 ulp: x = n ln2 + r, |r| <= ln2 / 2, e^r by a degree-6 polynomial, times 2^n. Below
    // -87.3 (where fp32 results turn subnormal) the result is 0, so e^-inf = 0; NaN stays NaN.
    static V Exp(V x) {
        const V clamped = _mm512_min_ps(_mm512_max_ps(x, Set(-87.33654f)), Set(88.72283f));
        const V n = _mm512_roundscale_ps(_mm512_mul_ps(clamped, Set(1.44269504f)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        V r = _mm512_fnmadd_ps(n, Set(0.693359375f), clamped);
        r = _mm512_fnmadd_ps(n, Set(-2.12194440e-4f), r);
        V p = Set(1.9875691500e-4f);
        p = MulAdd(p, r, Set(1.3981999507e-3f));
        p = MulAdd(p, r, Set(8.3334519073e-3f));
        p = MulAdd(p, r, Set(4.1665795894e-2f));
        p = MulAdd(p, r, Set(1.6666665459e-1f));
        p = MulAdd(p, r, Set(5.0000001201e-1f));
        const V y = MulAdd(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, Set(1.0f)));
        V result = _mm512_scalef_ps(y, n);
        result = _mm512_mask_mov_ps(result, _mm512_cmp_ps_mask(x, Set(-87.33654f), _CMP_LT_OQ), Zero());
        result = _mm512_mask_mov_ps(result, _mm512_cmp_ps_mask(x, Set(88.72283f), _CMP_GT_OQ),
                                    Set(__builtin_inff()));
        return _mm512_mask_mov_ps(result, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
    }

    // 2^y = 2^n p(f), y = n + f, |f| <= 1/2, p the polynomial of `coefficients` (lowest degree first). Exactly 0
    // where y < -125 (so 2^-inf = 0, a key of weight 0), by a mask rather than by underflow: results below
    // FLT_MIN would cost a microcode assist each. A NaN y gives 0: callers' rows are NaN through their maximum
    // and rescale factor already.
    template <int kTerms>
    static V Exp2Polynomial(V y, const float (&coefficients)[kTerms]) {
        const __mmask16 kept = _mm512_cmp_ps_mask(y, Set(-125.0f), _CMP_GE_OQ);
        const V n = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const V f = _mm512_sub_ps(y, n);
        V p = Set(coefficients[kTerms - 1]);
        for (int i = kTerms - 2; i >= 0; --i)
            p = MulAdd(p, f, Set(coefficients[i]));
        return _mm512_maskz_scalef_ps(kept, p, n);
    }

    // 2^y to about 2^-13.7 relative (kExp2Coefficients): for weights rounded to bf16 (2^-8) whose sum is taken
    // of the rounded weights, so that this error is far below the weights' own.
    static V Exp2(V y) { return Exp2Polynomial(y, kExp2Coefficients); }

    // 2^y to about 2^-23 relative (kExp2PreciseCoefficients): for weights kept in fp32.
    static V Exp2Precise(V y) { return Exp2Polynomial(y, kExp2PreciseCoefficients); }

    static constexpr float kLog2e = 1.44269504f;

    // The softmax's fp32 weights e^x, x a logit less its lane's reference maximum (at most the lazy rescale's
    // 8, or -inf, or NaN): 2^(x log2 e) by Exp2Precise, half of Exp's instructions. The product x log2 e
    // rounds once, so a weight moves by at most |x| 2^-24 of itself beyond Exp2Precise's 2^-23: 2^-19 at
    // e^-20, where a weight is 2^-29 of its lane's largest. 0 below 2^-125 (Exp: 2^-126); NaN stays NaN.
    static V ExpWeight(V x) {
        const V y = _mm512_mul_ps(x, Set(kLog2e));
        return _mm512_mask_mov_ps(Exp2Precise(y), _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q), y);
    }

    // int8 keys' Q.K by int16 dot products (AVX512-VNNI), below.
    static constexpr bool kInt16Dots = true;
    // int8 values' P.V by int16 dot products (AVX512-VNNI), below.
    static constexpr bool kInt16Values = true;
    // int8 QKV in the column runner by int16 pair products (AVX512-VNNI), below.
    static constexpr bool kInt16Pairs = true;

    // out[c] = x[c] * factor rounded to the nearest integer (ties to even), for c < n, n a multiple of 16; the
    // products lie within the int16 range.
    static void ToInt16(const float* x, float factor, int n, int16_t* out) {
        const V f = Set(factor);
        for (int c = 0; c < n; c += 16) {
            const __m512i rounded = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + c), f));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), _mm512_cvtepi32_epi16(rounded));
        }
    }

    // out[i] = Exp(x[i] - shift) for i < n <= 16: the same bits Exp gives x[i] - shift in any lane.
    static void ExpsOf(const float* x, int n, float shift, float* out) {
        const __mmask16 first = static_cast<__mmask16>((1u << n) - 1);
        const V y = _mm512_sub_ps(_mm512_maskz_loadu_ps(first, x), Set(shift));
        _mm512_mask_storeu_ps(out, first, Exp(y));
    }

    // The int8 P.V's weights in one pass (TaskRunner::RoundedWeights): s[c] = Exp(s[c] - shift) for c < n (n a
    // multiple of 16) and out[c] = s[c] * factor rounded to the nearest integer (ties to even), saturated to
    // int16 (factor = 32767 / the largest weight: the saturation guards only an exp that is not monotone by an
    // ulp). Returns the per-lane sums of out as floats (exact: n / 16 values of at most 2^15 each), for the
    // caller to scale and add up once per tile rather than once per call.
    static V ExpToInt16(float* s, int n, float shift, float factor, int16_t* out) {
        const V f = Set(factor), minus = Set(shift);
        __m512i total = _mm512_setzero_si512();
        for (int c = 0; c < n; c += 16) {
            const V w = Exp(_mm512_sub_ps(_mm512_loadu_ps(s + c), minus));
            _mm512_storeu_ps(s + c, w);
            const __m512i rounded = _mm512_cvtps_epi32(_mm512_mul_ps(w, f));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), _mm512_cvtsepi32_epi16(rounded));
            total = _mm512_add_epi32(total, rounded);
        }
        return _mm512_cvtepi32_ps(total);
    }

    // Q.K of int8 key rows by int16 dot products (AVX512-VNNI; called only where KernelCall::int8Dots says the
    // CPU has them): out[l * ldo + t] = q_l . k_t for NL lanes (int16 query rows `ldq` apart) and keys [0, m)
    // (key row t at keys.Row(t)), channels [0, dim), dim a multiple of 32. Each instruction adds two exact
    // int16 x int8 products (each below 2^22) to an int32 lane, which holds dim / 16 of them: exact for any
    // head size below 8192. The blocks stay in this target("avx512vnni") function (called per block, they ran
    // 1.14x the time) and so do their reductions: blocks of 4 lanes x 4 keys sum in int32 (exact) and convert
    // the 16 dots at once, narrower ones go through reduce(a, out, ldo) (ReduceDots, register_blocks.inl).
    template <int NL, class Rows, class Reduce>
    __attribute__((target("avx512vnni"))) static void Int16Dots(const int16_t* q, int64_t ldq, const Rows& keys,
                                                                int32_t m, int dim, float* out, int64_t ldo,
                                                                Reduce reduce) {
        int32_t t = 0;
        for (; t + 4 <= m; t += 4) {
            V a[NL][4];
            Int16DotBlock<NL, 4>(q, ldq, keys, t, dim, a);
            if constexpr (NL == 4) {
                const V sums = ReduceTree4x4(a, [](V x, V y) {
                    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(x), _mm512_castps_si512(y)));
                });
                Store4x4(_mm512_cvtepi32_ps(_mm512_castps_si512(sums)), out + t, ldo);
            } else {
                ToFloats(a);
                reduce(a, out + t, ldo);
            }
        }
        for (; t < m; ++t) {
            V a[NL][1];
            Int16DotBlock<NL, 1>(q, ldq, keys, t, dim, a);
            ToFloats(a);
            for (int l = 0; l < NL; ++l)
                out[l * ldo + t] = ReduceAdd(a[l][0]);
        }
    }

    // a[l][i]: int32 lanes held as their bits, converted to fp32.
    template <int NL, int NK>
    static void ToFloats(V (&a)[NL][NK]) {
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < NK; ++i)
                a[l][i] = _mm512_cvtepi32_ps(_mm512_castps_si512(a[l][i]));
        }
    }

    // a[l][i] = the per-lane int32 sums of q_l . k_(t + i) (Int16Dots), held as their bits.
    template <int NL, int NK, class Rows>
    __attribute__((target("avx512vnni"), always_inline)) static inline void Int16DotBlock(
        const int16_t* q, int64_t ldq, const Rows& keys, int32_t t, int dim, V (&a)[NL][NK]) {
        __m512i sum[NL][NK];
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < NK; ++i)
                sum[l][i] = _mm512_setzero_si512();
        }
        for (int c = 0; c < dim; c += 32) {
            __m512i key[NK];
            for (int i = 0; i < NK; ++i)
                key[i] = _mm512_cvtepi8_epi16(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys.Row(t + i) + c)));
            for (int i = 0; i < NK; ++i)
                keys.Request(t + i, c);
            for (int l = 0; l < NL; ++l) {
                const __m512i x = _mm512_loadu_si512(q + l * ldq + c);
                for (int i = 0; i < NK; ++i)
                    sum[l][i] = _mm512_dpwssd_epi32(sum[l][i], x, key[i]);
            }
        }
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < NK; ++i)
                a[l][i] = _mm512_castsi512_ps(sum[l][i]);
        }
    }

    // Q.K of bf16 key rows by bf16 dot products (AVX512-BF16; called only where KernelCall::bf16RowDots says
    // the CPU has them): out[l * ldo + t] = q_l . k_t for NL lanes (raw bf16 query rows `ldq` apart) and keys
    // [0, m) (key row t at keys.Row(t)), channels [0, dim), dim a multiple of 32. Each instruction adds two
    // exact products per fp32 lane; the lanes' partial sums reduce as the fp32 dots' do (reduce: ReduceDots).
    template <int NL, class Rows, class Reduce>
    __attribute__((target("avx512bf16"))) static void Bf16Dots(const uint16_t* q, int64_t ldq, const Rows& keys,
                                                                int32_t m, int dim, float* out, int64_t ldo,
                                                                Reduce reduce) {
        int32_t t = 0;
        for (; t + 4 <= m; t += 4) {
            V a[NL][4];
            Bf16DotBlock<NL, 4>(q, ldq, keys, t, dim, a);
            reduce(a, out + t, ldo);
        }
        for (; t < m; ++t) {
            V a[NL][1];
            Bf16DotBlock<NL, 1>(q, ldq, keys, t, dim, a);
            for (int l = 0; l < NL; ++l)
                out[l * ldo + t] = ReduceAdd(a[l][0]);
        }
    }

    // a[l][i] = the per-lane partial sums of q_l . k_(t + i) (Bf16Dots).
    template <int NL, int NK, class Rows>
    __attribute__((target("avx512bf16"), always_inline)) static inline void Bf16DotBlock(
        const uint16_t* q, int64_t ldq, const Rows& keys, int32_t t, int dim, V (&a)[NL][NK]) {
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < NK; ++i)
                a[l][i] = _mm512_setzero_ps();
        }
        for (int c = 0; c < dim; c += 32) {
            __m512bh key[NK];
            for (int i = 0; i < NK; ++i)
                key[i] = __builtin_bit_cast(__m512bh, _mm512_loadu_si512(keys.Row(t + i) + c));
            for (int i = 0; i < NK; ++i)
                keys.Request(t + i, c);
            for (int l = 0; l < NL; ++l) {
                const __m512bh x = __builtin_bit_cast(__m512bh, _mm512_loadu_si512(q + l * ldq + c));
                for (int i = 0; i < NK; ++i)
                    a[l][i] = _mm512_dpbf16_ps(a[l][i], x, key[i]);
            }
        }
    }

    // acc_l[c] += step[l] * sum_t w_l[t] * v_t[c] for NL lanes (int16 weight rows `ldw` apart, acc rows `lda`
    // apart) over keys [0, m) of int8 value rows (values.Row(t)), channels [0, dim), dim a multiple of 32, by
    // int16 dot products (AVX512-VNNI; called only where KernelCall::int8PV says the CPU has them). Keys go in
    // pairs: the rows of keys t and t + 1 interleaved byte by byte and widened give each int32 lane the two
    // products of one channel, VPDPWSSD adds them exactly (each below 2^22; a lane sums at most kTileKeys of
    // them); an odd last key pairs with itself under the zero weight that pads the row.
    template <int NL, class Rows>
    __attribute__((target("avx512vnni"))) static void Int16Accumulate(const int16_t* w, int64_t ldw, int32_t m,
                                                                       const Rows& values, int dim,
                                                                       const float* step, float* acc, int64_t lda) {
        int c = 0;
        for (; c + 64 <= dim; c += 64)
            Int16AccumulateBlock<NL, 2>(w, ldw, m, values, c, step, acc + c, lda);
        if (c < dim) Int16AccumulateBlock<NL, 1>(w, ldw, m, values, c, step, acc + c, lda);
    }

    // Int16Accumulate's channels [c, c + 32 * NG).
    template <int NL, int NG, class Rows>
    __attribute__((target("avx512vnni"), always_inline)) static inline void Int16AccumulateBlock(
        const int16_t* w, int64_t ldw, int32_t m, const Rows& values, int c, const float* step, float* acc,
        int64_t lda) {
        __m512i sum[NL][2 * NG];
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < 2 * NG; ++i)
                sum[l][i] = _mm512_setzero_si512();
        }
        for (int32_t t = 0; t < m; t += 2) {
            const int8_t* first = values.Row(t) + c;
            const int8_t* second = t + 1 < m ? values.Row(t + 1) + c : first;
            __m512i v[2 * NG];
            for (int g = 0; g < NG; ++g) {
                // Per 128-bit half, bytes (first[k], second[k]): channels 0-7 and 16-23 of the 32 in `low`,
                // 8-15 and 24-31 in `high`.
                const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(first + 32 * g));
                const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(second + 32 * g));
                v[2 * g] = _mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(a, b));
                v[2 * g + 1] = _mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(a, b));
                values.Request(t, c + 32 * g);
                if (t + 1 < m) values.Request(t + 1, c + 32 * g);
            }
            for (int l = 0; l < NL; ++l) {
                int32_t pair;
                __builtin_memcpy(&pair, w + l * ldw + t, sizeof(pair));
                const __m512i x = _mm512_set1_epi32(pair);
                for (int i = 0; i < 2 * NG; ++i)
                    sum[l][i] = _mm512_dpwssd_epi32(sum[l][i], x, v[i]);
            }
        }
        for (int l = 0; l < NL; ++l) {
            const V s = _mm512_set1_ps(step[l]);
            for (int g = 0; g < NG; ++g) {
                const V low = _mm512_cvtepi32_ps(sum[l][2 * g]), high = _mm512_cvtepi32_ps(sum[l][2 * g + 1]);
                float* out = acc + l * lda + 32 * g;
                const V head = _mm512_shuffle_f32x4(low, high, 0x44);  // channels 0-15
                const V tail = _mm512_shuffle_f32x4(low, high, 0xEE);  // channels 16-31
                _mm512_storeu_ps(out, _mm512_fmadd_ps(head, s, _mm512_loadu_ps(out)));
                _mm512_storeu_ps(out + 16, _mm512_fmadd_ps(tail, s, _mm512_loadu_ps(out + 16)));
            }
        }
    }

    // One lane's weights w[0, n) (n <= 32) of the row runner's bf16 P.V (Bf16Accumulate) times `shrink`,
    // rounded to bf16 (ties to even) into out[0, n) in key order, so that the weights of keys 2p and 2p + 1 are
    // the 32-bit word p, and out[n] = 0 where n is odd (the pair of the last key). Returns what the rounding
    // changes the weights' sum by, without the shrink: the rounded weights' sum (by the bf16 dot instruction
    // against ones, so that it holds exactly the weights the product uses) over `shrink`, less w's.
    __attribute__((target("avx512bf16"))) static float RoundWeightsToBf16(const float* w, int32_t n, float shrink,
                                                                          uint16_t* out) {
        const __mmask32 keys = n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
        const V low = _mm512_maskz_loadu_ps(static_cast<__mmask16>(keys), w);
        const V high = _mm512_maskz_loadu_ps(static_cast<__mmask16>(keys >> 16), w + 16);
        const __m512bh rounded = _mm512_cvtne2ps_pbh(Mul(high, Set(shrink)), Mul(low, Set(shrink)));
        const int32_t words = n + (n & 1);
        _mm512_mask_storeu_epi16(out, words >= 32 ? ~__mmask32{0} : (__mmask32{1} << words) - 1,
                                 __builtin_bit_cast(__m512i, rounded));
        const __m512bh ones = __builtin_bit_cast(__m512bh, _mm512_set1_epi16(0x3F80));
        return ReduceAdd(_mm512_dpbf16_ps(Zero(), rounded, ones)) / shrink - ReduceAdd(Add(low, high));
    }

    // out_l[c] = sum_t w_l[t] * v_t[c] for NL lanes (bf16 weight rows `ldw` apart, as RoundWeightsToBf16
    // writes them; out rows `ldo` apart) over keys [0, m) of bf16 value rows (values.Row(t)), channels [0, dim),
    // dim a multiple of 32, by bf16 dot products (AVX512-BF16; called only where KernelCall::bf16PV says the CPU
    // has them). Keys go in pairs: the rows of keys t and t + 1 interleaved word by word (the in-lane unpacks)
    // give each fp32 lane the two products of one channel, exact in fp32; an odd last key pairs with itself
    // under the zero weight that pads the row. Returns whether every value is finite and at most 2 in magnitude
    // (its bits without the sign at most 0x4000, 2.0; inf and NaN are above), checked as the rows are read: only
    // then may the caller use out. False as soon as a pair of rows holds a larger one, so that a sub-tile of
    // large values costs little more than its check.
    template <int NL, class Rows>
    __attribute__((target("avx512bf16"))) static bool Bf16Accumulate(const uint16_t* w, int64_t ldw, int32_t m,
                                                                      const Rows& values, int dim, float* out,
                                                                      int64_t ldo) {
        int c = 0;
        for (; c + 64 <= dim; c += 64) {
            if (!Bf16AccumulateBlock<NL, 2>(w, ldw, m, values, c, out + c, ldo)) return false;
        }
        return c == dim || Bf16AccumulateBlock<NL, 1>(w, ldw, m, values, c, out + c, ldo);
    }

    // Bf16Accumulate's channels [c, c + 32 * NG).
    template <int NL, int NG, class Rows>
    __attribute__((target("avx512bf16"), always_inline)) static inline bool Bf16AccumulateBlock(
        const uint16_t* w, int64_t ldw, int32_t m, const Rows& values, int c, float* out, int64_t ldo) {
        const __m512i magnitude = _mm512_set1_epi16(0x7FFF), two = _mm512_set1_epi16(0x4000);
        V sum[NL][2 * NG];
        for (int l = 0; l < NL; ++l) {
            for (int i = 0; i < 2 * NG; ++i)
                sum[l][i] = Zero();
        }
        for (int32_t t = 0; t < m; t += 2) {
            const uint16_t* first = values.Row(t) + c;
            const uint16_t* second = t + 1 < m ? values.Row(t + 1) + c : first;
            __m512bh v[2 * NG];
            __m512i largest = _mm512_setzero_si512();
            for (int g = 0; g < NG; ++g) {
                // Per 128-bit lane L, words (first[k], second[k]): channels 8L to 8L + 3 of the 32 in the even
                // vector, 8L + 4 to 8L + 7 in the odd one.
                const __m512i a = _mm512_loadu_si512(first + 32 * g), b = _mm512_loadu_si512(second + 32 * g);
                largest = _mm512_max_epu16(largest, _mm512_and_si512(a, magnitude));
                largest = _mm512_max_epu16(largest, _mm512_and_si512(b, magnitude));
                v[2 * g] = __builtin_bit_cast(__m512bh, _mm512_unpacklo_epi16(a, b));
                v[2 * g + 1] = __builtin_bit_cast(__m512bh, _mm512_unpackhi_epi16(a, b));
                values.Request(t, c + 32 * g);
                if (t + 1 < m) values.Request(t + 1, c + 32 * g);
            }
            if (_mm512_cmpgt_epu16_mask(largest, two) != 0) return false;
            for (int l = 0; l < NL; ++l) {
                int32_t pair;
                __builtin_memcpy(&pair, w + l * ldw + t, sizeof(pair));
                const __m512bh x = __builtin_bit_cast(__m512bh, _mm512_set1_epi32(pair));
                for (int i = 0; i < 2 * NG; ++i)
                    sum[l][i] = _mm512_dpbf16_ps(sum[l][i], x, v[i]);
            }
        }
        const __m512i head = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
        const __m512i tail = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
        for (int l = 0; l < NL; ++l) {
            for (int g = 0; g < NG; ++g) {
                const V low = sum[l][2 * g], high = sum[l][2 * g + 1];
                _mm512_storeu_ps(out + l * ldo + 32 * g, _mm512_permutex2var_ps(low, head, high));
                _mm512_storeu_ps(out + l * ldo + 32 * g + 16, _mm512_permutex2var_ps(low, tail, high));
            }
        }
        return true;
    }

    // Products by bf16 dot products (AVX512-BF16; called only where KernelCall::bf16Dots or bf16PV says the CPU
    // has them): C[i][vectors] (= or, kLoadC, +=) sum over pairs p of A(i, p) . B[p][vectors], A(i, p) the
    // 32-bit pair at rows[i] + p * pairStride bytes (Q.K: bf16 key rows read in place as channel pairs; P.V:
    // packed value pairs of two keys), B rows of 16 lanes' pairs `ldb` words apart (query channel pairs, or
    // weight pairs of two keys). Products of bf16 are exact in fp32; each instruction adds two of them to the
    // fp32 sum. pairs >= 1 (every caller has a key or a channel pair): with the loop's test at its end, the
    // compiler keeps the sums in registers, where a loop that may not run had them stored to the stack and
    // back around it (7-8 % of a bf16 prefill's time).
    static constexpr bool kBf16Dots = true;

    template <int NI, int NV, bool kLoadC>
    __attribute__((target("avx512bf16"))) static void PairBlock(const char* const* rows, int64_t pairStride,
                                                                 const uint32_t* b, int64_t ldb, int32_t pairs,
                                                                 float* c, int64_t ldc) {
        __m512 acc[NI][NV];
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v)
                acc[i][v] = kLoadC ? _mm512_loadu_ps(c + i * ldc + v * 16) : _mm512_setzero_ps();
        }
        int32_t p = 0;
        do {
            __m512bh row[NV];
            for (int v = 0; v < NV; ++v)
                row[v] = __builtin_bit_cast(__m512bh, _mm512_loadu_si512(b + p * ldb + v * 16));
            for (int i = 0; i < NI; ++i) {
                uint32_t pair;
                __builtin_memcpy(&pair, rows[i] + p * pairStride, sizeof(pair));
                const __m512bh x = __builtin_bit_cast(__m512bh, _mm512_set1_epi32(static_cast<int>(pair)));
                for (int v = 0; v < NV; ++v)
                    acc[i][v] = _mm512_dpbf16_ps(acc[i][v], x, row[v]);
            }
        } while (++p < pairs);
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v)
                _mm512_storeu_ps(c + i * ldc + v * 16, acc[i][v]);
        }
    }

    // Rows [0, n) of C over NV vectors, in blocks of 8 rows where the lanes fill one vector (VDPBF16PS takes
    // about 6 cycles and issues one a cycle: blocks of 4 rows kept 4 sums and reached two thirds of the peak),
    // else of 4, then 2 and 1.
    template <int NV, bool kLoadC>
    __attribute__((target("avx512bf16"))) static void PairRows(const char* const* rows, int64_t pairStride,
                                                                int32_t n, const uint32_t* b, int64_t ldb,
                                                                int32_t pairs, float* c, int64_t ldc) {
        int32_t i = 0;
        if constexpr (NV == 1) {
            for (; i + 8 <= n; i += 8)
                PairBlock<8, NV, kLoadC>(rows + i, pairStride, b, ldb, pairs, c + i * ldc, ldc);
        }
        for (; i + 4 <= n; i += 4)
            PairBlock<4, NV, kLoadC>(rows + i, pairStride, b, ldb, pairs, c + i * ldc, ldc);
        for (; i + 2 <= n; i += 2)
            PairBlock<2, NV, kLoadC>(rows + i, pairStride, b, ldb, pairs, c + i * ldc, ldc);
        if (i < n) PairBlock<1, NV, kLoadC>(rows + i, pairStride, b, ldb, pairs, c + i * ldc, ldc);
    }

    // Rows [0, n) of C over `vectors` vectors of lanes, in groups of at most 4 vectors.
    template <bool kLoadC>
    __attribute__((target("avx512bf16"))) static void PairProduct(const char* const* rows, int64_t pairStride,
                                                                   int32_t n, const uint32_t* b, int64_t ldb,
                                                                   int32_t pairs, float* c, int64_t ldc,
                                                                   int vectors) {
        for (int v0 = 0; v0 < vectors; v0 += 4) {
            switch (vectors - v0 < 4 ? vectors - v0 : 4) {
                case 1:
                    PairRows<1, kLoadC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
                    break;
                case 2:
                    PairRows<2, kLoadC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
                    break;
                case 3:
                    PairRows<3, kLoadC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
                    break;
                default:
                    PairRows<4, kLoadC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
            }
        }
    }

    // Int16 pair products (AVX512-VNNI; int8 QKV in the column runner), PairBlock's blocks: A's pairs are
    // words of two int16 (a key's channel pairs, or a channel's value pairs of two keys), B's 16 lanes' words
    // (query channel pairs, or integer weight pairs of two keys). Each instruction adds two exact products to
    // an int32 sum: exact for int8 QKV's dots (at most 4096 channels of at most 2^14) and P.V tiles (128 keys
    // of weights and values of at most 128). The sums go to C as fp32: stored, or with kAddC added to C times
    // `scale`'s lanes (the P.V's output factor of each lane).
    template <int NI, int NV, bool kAddC>
    __attribute__((target("avx512vnni"))) static void Int16PairBlock(const char* const* rows, int64_t pairStride,
                                                                      const uint32_t* b, int64_t ldb, int32_t pairs,
                                                                      const float* scale, float* c, int64_t ldc) {
        __m512i acc[NI][NV];
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v)
                acc[i][v] = _mm512_setzero_si512();
        }
        int32_t p = 0;
        do {
            __m512i row[NV];
            for (int v = 0; v < NV; ++v)
                row[v] = _mm512_loadu_si512(b + p * ldb + v * 16);
            for (int i = 0; i < NI; ++i) {
                int32_t pair;
                __builtin_memcpy(&pair, rows[i] + p * pairStride, sizeof(pair));
                const __m512i x = _mm512_set1_epi32(pair);
                for (int v = 0; v < NV; ++v)
                    acc[i][v] = _mm512_dpwssd_epi32(acc[i][v], x, row[v]);
            }
        } while (++p < pairs);
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v) {
                float* out = c + i * ldc + v * 16;
                const V sum = _mm512_cvtepi32_ps(acc[i][v]);
                _mm512_storeu_ps(out, kAddC ? _mm512_fmadd_ps(sum, _mm512_loadu_ps(scale + v * 16),
                                                              _mm512_loadu_ps(out))
                                            : sum);
            }
        }
    }

    // Rows [0, n) of C over NV vectors, as PairRows.
    template <int NV, bool kAddC>
    __attribute__((target("avx512vnni"))) static void Int16PairRows(const char* const* rows, int64_t pairStride,
                                                                     int32_t n, const uint32_t* b, int64_t ldb,
                                                                     int32_t pairs, const float* scale, float* c,
                                                                     int64_t ldc) {
        int32_t i = 0;
        if constexpr (NV == 1) {
            for (; i + 8 <= n; i += 8)
                Int16PairBlock<8, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
        }
        for (; i + 4 <= n; i += 4)
            Int16PairBlock<4, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
        for (; i + 2 <= n; i += 2)
            Int16PairBlock<2, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
        if (i < n) Int16PairBlock<1, NV, kAddC>(rows + i, pairStride, b, ldb, pairs, scale, c + i * ldc, ldc);
    }

    // Rows [0, n) of C over `vectors` vectors of lanes, in groups of at most 4 vectors.
    template <bool kAddC>
    __attribute__((target("avx512vnni"))) static void Int16PairProduct(const char* const* rows, int64_t pairStride,
                                                                        int32_t n, const uint32_t* b, int64_t ldb,
                                                                        int32_t pairs, const float* scale, float* c,
                                                                        int64_t ldc, int vectors) {
        for (int v0 = 0; v0 < vectors; v0 += 4) {
            const float* s = kAddC ? scale + v0 * 16 : nullptr;
            switch (vectors - v0 < 4 ? vectors - v0 : 4) {
                case 1:
                    Int16PairRows<1, kAddC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, s, c + v0 * 16, ldc);
                    break;
                case 2:
                    Int16PairRows<2, kAddC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, s, c + v0 * 16, ldc);
                    break;
                case 3:
                    Int16PairRows<3, kAddC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, s, c + v0 * 16, ldc);
                    break;
                default:
                    Int16PairRows<4, kAddC>(rows, pairStride, n, b + v0 * 16, ldb, pairs, s, c + v0 * 16, ldc);
            }
        }
    }

    // out[c] = in[c] as int16 for c < n, a multiple of 32.
    static void Int8ToInt16(const int8_t* in, int n, int16_t* out) {
        for (int c = 0; c < n; c += 32)
            _mm512_storeu_si512(out + c,
                                _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + c))));
    }

    // out[c] = the word a[c] | b[c] << 16 of two int8 rows as int16 (b null: 0), c < n, in channel order.
    static void Int8PairRow(const int8_t* a, const int8_t* b, int n, uint32_t* out) {
        const __m512i low = _mm512_set1_epi32(0xFFFF);
        int c = 0;
        for (; c + 16 <= n; c += 16) {
            const __m512i first = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + c)));
            const __m512i second =
                b != nullptr ? _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + c)))
                             : _mm512_setzero_si512();
            _mm512_storeu_si512(out + c,
                                _mm512_or_si512(_mm512_and_si512(first, low), _mm512_slli_epi32(second, 16)));
        }
        for (; c < n; ++c) {
            const auto high = b != nullptr ? static_cast<uint32_t>(static_cast<uint16_t>(b[c])) << 16 : 0u;
            out[c] = static_cast<uint16_t>(a[c]) | high;
        }
    }

    // out[i] = the word first[i] | second[i] << 16 of two vectors of integer-valued floats within int16.
    static void StoreInt16Pairs(V first, V second, uint32_t* out) {
        const __m512i low = _mm512_and_si512(_mm512_cvtps_epi32(first), _mm512_set1_epi32(0xFFFF));
        _mm512_storeu_si512(out, _mm512_or_si512(low, _mm512_slli_epi32(_mm512_cvtps_epi32(second), 16)));
    }

    // The weights of two keys for 16 lanes rounded to bf16 and interleaved per lane (the first key's in the low
    // half of each 32-bit word: the pairs the bf16 P.V multiplies); adds both rounded weights to `total`, summed
    // by the bf16 dot instruction against ones, so that the sum holds exactly the weights the product uses.
    __attribute__((target("avx512bf16"))) static __m512i WeightPairs(V first, V second, V& total) {
        alignas(64) static constexpr uint16_t kInterleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                                  21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26,
                                                                  11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
        const __m512i pairs = _mm512_permutexvar_epi16(_mm512_load_si512(kInterleave),
                                                       __builtin_bit_cast(__m512i, _mm512_cvtne2ps_pbh(second, first)));
        const __m512bh ones = __builtin_bit_cast(__m512bh, _mm512_set1_epi16(0x3F80));
        total = _mm512_dpbf16_ps(total, __builtin_bit_cast(__m512bh, pairs), ones);
        return pairs;
    }

    // The weights 2^((s_t - shift) log2(e) + exponent) (Exp2) of keys [0, n) for 16 lanes, their logits s_t
    // rows `lds` floats apart, as the bf16 pairs of keys 2p and 2p + 1 at out + p * ldo (WeightPairs; an odd
    // last key pairs with 0). Returns the sum of the rounded weights. The logit minus the shift is formed first:
    // a finite mask value such as -3e38 times log2(e) is beyond fp32.
    __attribute__((target("avx512bf16"))) static V ExpWeightPairs(const float* s, int64_t lds, int32_t n, V shift,
                                                                   V exponent, uint32_t* out, int64_t ldo) {
        const auto weight = [&](int32_t t) { return Exp2(MulAdd(Sub(Load(s + t * lds), shift), Set(kLog2e), exponent)); };
        V total = Zero();
        for (int32_t t = 0; t < n; t += 2) {
            const __m512i pairs = WeightPairs(weight(t), t + 1 < n ? weight(t + 1) : Zero(), total);
            _mm512_storeu_si512(out + t / 2 * ldo, pairs);
        }
        return total;
    }

    // Channel c of two bf16 rows a and b as one pair a[c] | b[c] << 16, at word PairPosition(c, n) of out, for
    // c < n (a multiple of 16); b null: a row of zeros. Returns whether every value read is finite and at most
    // 2 in magnitude: its bits without the sign are at most 0x4000 (2.0); inf and NaN are above it. Whole
    // 32-channel blocks are interleaved by the in-lane unpacks (one instruction per 16 pairs), which leave the
    // pairs in PairPosition's order; a last block of 16 channels stays in channel order.
    static bool PairRowsAtMostTwo(const uint16_t* a, const uint16_t* b, int n, uint32_t* out) {
        const __m512i magnitude = _mm512_set1_epi16(0x7FFF);
        __m512i largest = _mm512_setzero_si512();
        int c = 0;
        for (; c + 32 <= n; c += 32) {
            const __m512i first = _mm512_loadu_si512(a + c);
            const __m512i second = b != nullptr ? _mm512_loadu_si512(b + c) : _mm512_setzero_si512();
            largest = _mm512_max_epu16(largest, _mm512_and_si512(first, magnitude));
            largest = _mm512_max_epu16(largest, _mm512_and_si512(second, magnitude));
            _mm512_storeu_si512(out + c, _mm512_unpacklo_epi16(first, second));
            _mm512_storeu_si512(out + c + 16, _mm512_unpackhi_epi16(first, second));
        }
        if (c < n) {
            const __m512i first = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + c)));
            const __m512i second =
                b != nullptr ? _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + c)))
                             : _mm512_setzero_si512();
            largest = _mm512_max_epu16(largest, _mm512_and_si512(first, magnitude));
            largest = _mm512_max_epu16(largest, _mm512_and_si512(second, magnitude));
            _mm512_storeu_si512(out + c, _mm512_or_si512(first, _mm512_slli_epi32(second, 16)));
        }
        return _mm512_cmpgt_epu16_mask(largest, _mm512_set1_epi16(0x4000)) == 0;
    }

    // Where PairRowsAtMostTwo puts channel c of rows of n channels: within a whole 32-channel block, channels
    // 8L to 8L + 3 of 128-bit lane L at words 4L to 4L + 3, channels 8L + 4 to 8L + 7 at words 16 + 4L on.
    static int PairPosition(int c, int n) {
        const int block = c & ~31, k = c & 31;
        if (block + 32 > n) return c;
        return block + ((k & 4) != 0 ? 16 : 0) + (k >> 3) * 4 + (k & 3);
    }
};
