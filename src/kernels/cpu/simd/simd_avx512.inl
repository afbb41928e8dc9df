// fp32 vectors of 16 lanes on AVX-512 (F, BW, DQ, VL) with F16C: the operations the attention kernel is
// written in. Included inside namespace atbx::kernels::cpu::avx512 by the one translation unit compiled with
// AVX-512 flags.

struct Simd {
    using V = __m512;
    static constexpr int kWidth = 16;

    static V Zero() { return _mm512_setzero_ps(); }
    static V Set(float x) { return _mm512_set1_ps(x); }
    static V Load(const float* p) { return _mm512_loadu_ps(p); }
    static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V Add(V a, V b) { return _mm512_add_ps(a, b); }
    static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
    static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V MulAdd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c
    // The second operand when either is NaN, as the x86 instructions do.
    static V Max(V a, V b) { return _mm512_max_ps(a, b); }
    static V Min(V a, V b) { return _mm512_min_ps(a, b); }
    // base[i * stride] in lane i for i < count, 0 in the others (nothing past them is read).
    static V Gather(const float* base, int64_t stride, int count) {
        const __m512i index = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                 _mm512_set1_epi32(static_cast<int>(stride)));
        const __mmask16 take = count >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (count > 0 ? count : 0)) - 1);
        return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), take, index, base, 4);
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
    static float ReduceMax(V v) { return _mm512_reduce_max_ps(v); }
    // score + term, or -inf where the term is -inf (a hidden key stays hidden whatever its score, NaN included).
    static V AddMaskTerm(V score, V term) {
        const __mmask16 hidden = _mm512_cmp_ps_mask(term, _mm512_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);
        return _mm512_mask_mov_ps(_mm512_add_ps(score, term), hidden, term);
    }
    static bool AnyNaN(V v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) != 0; }
    static bool AnyZero(V v) { return _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_OQ) != 0; }

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

    // Q.K by bf16 dot products (AVX512-BF16; called only where KernelCall::bf16Dots says the CPU has them):
    // C[i][vectors] = sum over channel pairs p of A(i, p) . B[p][vectors], A's rows bf16 key rows read as
    // 32-bit channel pairs in place at rows[i], B rows of 16 lanes' query pairs `ldb` words apart. Products of
    // bf16 are exact in fp32; each instruction adds two of them to the fp32 sum.
    static constexpr bool kBf16Dots = true;

    template <int NI, int NV>
    __attribute__((target("avx512bf16"))) static void PairBlock(const char* const* rows, const uint32_t* b,
                                                                 int64_t ldb, int32_t pairs, float* c, int64_t ldc) {
        __m512 acc[NI][NV];
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v)
                acc[i][v] = _mm512_setzero_ps();
        }
        for (int32_t p = 0; p < pairs; ++p) {
            __m512bh row[NV];
            for (int v = 0; v < NV; ++v)
                row[v] = __builtin_bit_cast(__m512bh, _mm512_loadu_si512(b + p * ldb + v * 16));
            for (int i = 0; i < NI; ++i) {
                uint32_t pair;
                __builtin_memcpy(&pair, rows[i] + 4 * p, sizeof(pair));
                const __m512bh x = __builtin_bit_cast(__m512bh, _mm512_set1_epi32(static_cast<int>(pair)));
                for (int v = 0; v < NV; ++v)
                    acc[i][v] = _mm512_dpbf16_ps(acc[i][v], x, row[v]);
            }
        }
        for (int i = 0; i < NI; ++i) {
            for (int v = 0; v < NV; ++v)
                _mm512_storeu_ps(c + i * ldc + v * 16, acc[i][v]);
        }
    }

    template <int NV>
    __attribute__((target("avx512bf16"))) static void PairRows(const char* const* rows, int32_t n, const uint32_t* b,
                                                                int64_t ldb, int32_t pairs, float* c, int64_t ldc) {
        int32_t i = 0;
        for (; i + 4 <= n; i += 4)
            PairBlock<4, NV>(rows + i, b, ldb, pairs, c + i * ldc, ldc);
        for (; i + 2 <= n; i += 2)
            PairBlock<2, NV>(rows + i, b, ldb, pairs, c + i * ldc, ldc);
        if (i < n) PairBlock<1, NV>(rows + i, b, ldb, pairs, c + i * ldc, ldc);
    }

    // Rows [0, n) of C over `vectors` vectors of lanes, in groups of at most 4 vectors.
    __attribute__((target("avx512bf16"))) static void PairProduct(const char* const* rows, int32_t n,
                                                                   const uint32_t* b, int64_t ldb, int32_t pairs,
                                                                   float* c, int64_t ldc, int vectors) {
        for (int v0 = 0; v0 < vectors; v0 += 4) {
            switch (vectors - v0 < 4 ? vectors - v0 : 4) {
                case 1:
                    PairRows<1>(rows, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
                    break;
                case 2:
                    PairRows<2>(rows, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
                    break;
                case 3:
                    PairRows<3>(rows, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
                    break;
                default:
                    PairRows<4>(rows, n, b + v0 * 16, ldb, pairs, c + v0 * 16, ldc);
            }
        }
    }
};
