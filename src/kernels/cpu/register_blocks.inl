// The register blocks of the CPU attention kernel's row runner, included by attention_kernel.inl inside its
// namespaces (no include guard): Q.K dot products of a few lanes and keys with their horizontal sums, and
// the P.V accumulation of a few lanes over a few vectors of channels, each loaded row shared by the lanes.

// One key's dot product with one query row (padded channels are zero in both): the tail of a register block.
template <class Rows>
ATBX_INLINE float Dot(const float* q, const Rows& k, int32_t t, int dimPad) {
    V a = Simd::Zero();
    for (int c = 0; c < dimPad; c += kW) {
        a = Simd::MulAdd(Simd::Load(q + c), k.Load(t, c), a);
        k.Request(t, c);
    }
    return Simd::ReduceAdd(a);
}

ATBX_INLINE float Dot(const float* q, const float* k, int dimPad) { return Dot(q, ScratchRows{k, 0}, 0, dimPad); }

// acc[0, Chunk * kW) += w_t * v_t over the tile's keys, channels [c, c + Chunk * kW) of the values, the
// accumulators held in registers.
template <int Chunk, class Rows>
ATBX_INLINE void AccumulateChunk(const float* weights, int32_t n, const Rows& values, int c, float* acc) {
    V a[Chunk];
    for (int i = 0; i < Chunk; ++i)
        a[i] = Simd::Load(acc + i * kW);
    for (int32_t t = 0; t < n; ++t) {
        const float w = weights[t];
        if (w == 0.0f) continue;  // a key of weight 0 takes no part, even with a NaN value
        const V wv = Simd::Set(w);
        for (int i = 0; i < Chunk; ++i) {
            a[i] = Simd::MulAdd(wv, values.Load(t, c + i * kW), a[i]);
            values.Request(t, c + i * kW);
        }
    }
    for (int i = 0; i < Chunk; ++i)
        Simd::Store(acc + i * kW, a[i]);
}

// The register blocks of the grouped arithmetic: lanes of one kv head share each load of a converted key or
// value row. AVX-512 has 32 vector registers (dot blocks of up to 4 lanes x 4 keys), the others 16: blocks of
// 3 or 4 lanes take 2 keys (at most 8 accumulators, so that each key row is loaded and converted once for 4
// lanes, not once per 2), blocks of 1 or 2 lanes 4 keys (at least 4 independent sums in flight).
constexpr int kBlockLanes = 4;
constexpr int BlockKeys(int lanes) { return kW == 16 || lanes <= 2 ? 4 : 2; }
constexpr int kBlockChannels = kW == 16 ? 4 : 2;  // vectors of a value row accumulated at once
// out[l * ldo + i] = the sum of a[l][i]'s lanes for NL lanes and NK (4 or 2) keys.
template <int NL, int NK>
ATBX_INLINE void ReduceDots(const V (&a)[NL][NK], float* out, int64_t ldo) {
    if constexpr (NK == 4) {
        if constexpr (NL == 4) return Simd::ReduceAdd4x4(a, out, ldo);
        for (int l = 0; l < NL; ++l)
            Simd::ReduceAdd4(a[l][0], a[l][1], a[l][2], a[l][3], out + l * ldo);
    } else {
        // Two lanes' two sums at a time.
        for (int l = 0; l < NL; l += 2) {
            const bool pair = l + 1 < NL;
            float sums[4];
            Simd::ReduceAdd4(a[l][0], a[l][1], pair ? a[l + 1][0] : Simd::Zero(), pair ? a[l + 1][1] : Simd::Zero(),
                             sums);
            out[l * ldo] = sums[0];
            out[l * ldo + 1] = sums[1];
            if (pair) {
                out[(l + 1) * ldo] = sums[2];
                out[(l + 1) * ldo + 1] = sums[3];
            }
        }
    }
}

// A vector that several products share, in a register on ISAs whose Simd has InRegister (AVX2: simd_avx2.inl
// says why); the others keep such loads in registers already.
template <class S = Simd>
ATBX_INLINE V LoadShared(const float* p) {
    if constexpr (requires(V v) { S::InRegister(v); }) return S::InRegister(S::Load(p));
    return S::Load(p);
}

// out[l * ldo + i] = q_l . k_(t + i) for NL lanes (rows `ldq` apart) and NK keys.
template <int NL, int NK, class Rows>
ATBX_INLINE void DotBlock(const float* q, int64_t ldq, const Rows& k, int32_t t, int dimPad, float* out, int64_t ldo) {
    V a[NL][NK];
    for (int l = 0; l < NL; ++l) {
        for (int i = 0; i < NK; ++i)
            a[l][i] = Simd::Zero();
    }
    for (int c = 0; c < dimPad; c += kW) {
        V key[NK];
        for (int i = 0; i < NK; ++i)
            key[i] = k.Load(t + i, c);
        for (int i = 0; i < NK; ++i)
            k.Request(t + i, c);
        for (int l = 0; l < NL; ++l) {
            const V x = LoadShared(q + l * ldq + c);
            for (int i = 0; i < NK; ++i)
                a[l][i] = Simd::MulAdd(x, key[i], a[l][i]);
        }
    }
    ReduceDots<NL, NK>(a, out, ldo);
}

// acc_l[0, NC * kW) += sum_t w_l[t] * v_t[c, c + NC * kW) for NL lanes (weights rows `ldw` apart, acc rows
// `lda` apart) over m keys. Every weight takes part: callers use it where no weight is 0.
template <int NL, int NC, class Rows>
ATBX_INLINE void AccumulateBlock(const float* w, int64_t ldw, int32_t m, const Rows& values, int c, float* acc,
                                 int64_t lda) {
    V a[NL][NC];
    for (int l = 0; l < NL; ++l) {
        for (int i = 0; i < NC; ++i)
            a[l][i] = Simd::Load(acc + l * lda + i * kW);
    }
    for (int32_t t = 0; t < m; ++t) {
        V v[NC];
        for (int i = 0; i < NC; ++i) {
            v[i] = values.Load(t, c + i * kW);
            values.Request(t, c + i * kW);
        }
        for (int l = 0; l < NL; ++l) {
            const V wv = Simd::Set(w[l * ldw + t]);
            for (int i = 0; i < NC; ++i)
                a[l][i] = Simd::MulAdd(wv, v[i], a[l][i]);
        }
    }
    for (int l = 0; l < NL; ++l) {
        for (int i = 0; i < NC; ++i)
            Simd::Store(acc + l * lda + i * kW, a[l][i]);
    }
}
