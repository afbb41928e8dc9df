// "Vectors" of one fp32 lane: the attention kernel's operations in portable C++, for CPUs without a SIMD
// path. Included inside namespace atbx::kernels::cpu::scalar.

struct Simd {
    using V = float;
    static constexpr int kWidth = 1;

    static V Zero() { return 0.0f; }
    static V Set(float x) { return x; }
    static V Load(const float* p) { return *p; }
    static void Store(float* p, V v) { *p = v; }
    static V Add(V a, V b) { return a + b; }
    static V Sub(V a, V b) { return a - b; }
    static V Or(V a, V b) { return std::bit_cast<V>(std::bit_cast<uint32_t>(a) | std::bit_cast<uint32_t>(b)); }
    static V Mul(V a, V b) { return a * b; }
    static V MulAdd(V a, V b, V c) { return a * b + c; }
    // The second operand when either is NaN, as the x86 instructions do.
    static V Max(V a, V b) { return a > b ? a : b; }
    static V Min(V a, V b) { return a < b ? a : b; }
    // columns[0] = rows[0][0]: the 1 x 1 block.
    static void Transpose(const float* const* rows, V* columns) { columns[0] = *rows[0]; }
    // The larger of a and b, or NaN where either is NaN.
    static V MaxNaN(V a, V b) { return a != a || b != b ? a + b : (a > b ? a : b); }
    static float ReduceAdd(V v) { return v; }
    static void ReduceAdd4(V a0, V a1, V a2, V a3, float* out) {
        out[0] = a0;
        out[1] = a1;
        out[2] = a2;
        out[3] = a3;
    }
    // out[l * ldo + k] = the sum of a[l][k]'s lanes for l, k < 4.
    static void ReduceAdd4x4(const V (&a)[4][4], float* out, int64_t ldo) {
        for (int l = 0; l < 4; ++l)
            ReduceAdd4(a[l][0], a[l][1], a[l][2], a[l][3], out + l * ldo);
    }
    static float ReduceMax(V v) { return v; }
    // score + term, or -inf where the term is -inf (a hidden key stays hidden whatever its score, NaN included).
    static V AddMaskTerm(V score, V term) { return term == -__builtin_inff() ? term : score + term; }
    static bool AnyNaN(V v) { return v != v; }
    static bool AnyZero(V v) { return v == 0.0f; }
    // 1 where v is not 0 (NaN included).
    static uint32_t NonZeroBits(V v) { return v != 0.0f ? 1u : 0u; }
    // Every lane a >= b (false where either is NaN).
    static bool AllAtLeast(V a, V b) { return a >= b; }

    static V LoadHalf(const uint16_t* p) {
        const uint16_t bits = *p;
        uint32_t widened = static_cast<uint32_t>(bits & 0x7FFFu) << 13;
        float scaled;
        __builtin_memcpy(&scaled, &widened, sizeof(scaled));
        scaled *= 0x1p112f;
        __builtin_memcpy(&widened, &scaled, sizeof(scaled));
        if ((bits & 0x7C00u) == 0x7C00u) widened |= 0x7F800000u;
        widened |= static_cast<uint32_t>(bits & 0x8000u) << 16;
        __builtin_memcpy(&scaled, &widened, sizeof(scaled));
        return scaled;
    }
    static V LoadBf16(const uint16_t* p) {
        const uint32_t widened = static_cast<uint32_t>(*p) << 16;
        float value;
        __builtin_memcpy(&value, &widened, sizeof(value));
        return value;
    }
    static V Div(V a, V b) { return a / b; }
    // Outputs are stored through the out-of-line StoreOutput (kernel_call.h).
    static constexpr bool kStoresHalf = false;
    static V LoadInt8(const int8_t* p) { return static_cast<float>(*p); }
    static V Exp(V x) { return x < -87.33654f ? 0.0f : __builtin_expf(x); }
    static V ExpWeight(V x) { return Exp(x); }  // the softmax's weights (the vector paths: 2^(x log2 e))

    static constexpr bool kBf16Dots = false;  // no bf16 dot products on this path
    static constexpr bool kInt16Dots = false;  // no int16 dot products on this path
    static constexpr bool kInt16Values = false;
    static constexpr bool kInt16Pairs = false;
};
