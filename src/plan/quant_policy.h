// QuantPolicy: full int8 quantisation of q, K and V (quantType QKV OFFLINE / ONLINE). Scores are integer dot
// products times a per-query-head descale; softmax weights P are quantised to int8 per KV tile before P.V.
// PagedAttention and SelfAttention define the P quantisation differently, so each has its own modes.
#ifndef ATBX_PLAN_QUANT_POLICY_H
#define ATBX_PLAN_QUANT_POLICY_H

namespace atbx::plan {

struct QuantPolicy {
    enum class Mode {
        kNone,
        kPagedOnline,   // PA: sigma = exp(tile_max - m) / 127 per tile and row; O_tile = (P8.V8) * vDescale *
                        // sigma
        kPagedOffline,  // PA: P8 = rint(p * pScale); O_tile = (P8.V8) * vDescale (vDescale folds in 1/pScale)
        kSelfOnline,  // SA: s = (max of the tile maxima of p seen so far in the row) / 127; P8 = rint(p / s);
                      // O_tile = (P8.V8) * vDescale * s
        kSelfOffline,  // SA: P8 = rint(p / pScale); O_tile = (P8.V8) * vDescale * pScale
    };
    Mode mode = Mode::kNone;
    const float* kDescale = nullptr;  // [headNum], per query head
    const float* vDescale = nullptr;  // [headNum]
    const float* pScale = nullptr;    // [headNum], offline modes

    static constexpr int kTileKeys = 128;  // keys per P-quantisation tile, counted from the item's kvBegin

    bool enabled() const { return mode != Mode::kNone; }
    bool selfAttention() const { return mode == Mode::kSelfOnline || mode == Mode::kSelfOffline; }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_QUANT_POLICY_H
