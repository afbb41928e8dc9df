// The online-softmax state every attention kernel keeps per (head, query row), for double (the reference) and
// float (the CPU kernels). Included inside each kernel namespace (ATBX_KERNEL_NAMESPACE), so that every
// instruction set compiles its own copy under its own name; no include guard for that reason.
//
// State: running maximum m, running sum l of exp(logit - m), and the weighted sum of values acc (kept by the
// caller). Numeric semantics (docs/decisions.md): a NaN logit makes m NaN for good, and with it l and acc;
// +inf logits give inf - inf = NaN; a row that has seen only -inf logits keeps l = 0, so acc / l = 0 / 0 = NaN.

namespace ATBX_KERNEL_NAMESPACE {

inline float SoftmaxExp(float x) {
    return __builtin_expf(x);
}
inline double SoftmaxExp(double x) {
    return __builtin_exp(x);
}

// The new maximum after a tile whose maximum is tileMax, and the factor the old l and acc are scaled by.
// `visible` is false while every logit so far is -inf: nothing is to be accumulated.
template <class T>
struct SoftmaxStep {
    T newMax;
    T rescale;
    bool visible;
};

template <class T>
SoftmaxStep<T> StepSoftmax(T oldMax, T tileMax) {
    constexpr T kNegInf = -__builtin_inf();
    if (oldMax != oldMax || tileMax != tileMax) return {tileMax + oldMax, tileMax + oldMax, true};
    const T newMax = oldMax > tileMax ? oldMax : tileMax;
    if (newMax == kNegInf) return {newMax, T(1), false};
    if (oldMax == kNegInf) return {newMax, T(0), true};
    // Most tiles leave the maximum where it was: e^0 = 1 exactly, without the libm call.
    return {newMax, oldMax == newMax ? T(1) : SoftmaxExp(oldMax - newMax), true};
}

// Merges the state (m2, l2, acc2) of a later part of the keys into (m, l, acc), acc being `n` values.
template <class T>
void MergeSoftmax(T& m, T& l, T* acc, T m2, T l2, const T* acc2, int64_t n) {
    constexpr T kNegInf = -__builtin_inf();
    if (m2 == kNegInf) return;  // the later part saw only -inf logits: it holds nothing
    if (m == kNegInf) {
        m = m2;
        l = l2;
        for (int64_t c = 0; c < n; ++c)
            acc[c] = acc2[c];
        return;
    }
    const SoftmaxStep<T> step = StepSoftmax(m, m2);
    const T later = m2 != m2 || m != m ? step.newMax : SoftmaxExp(m2 - step.newMax);
    m = step.newMax;
    l = l * step.rescale + l2 * later;
    for (int64_t c = 0; c < n; ++c)
        acc[c] = acc[c] * step.rescale + acc2[c] * later;
}

}  // namespace ATBX_KERNEL_NAMESPACE
