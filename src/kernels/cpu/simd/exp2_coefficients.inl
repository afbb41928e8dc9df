// Polynomials p(f) ~ 2^f on |f| <= 1/2, lowest degree first, fitted for relative error: the vector paths'
// Exp2 (degree 3, about 2^-13.7: weights rounded to bf16, whose own rounding is 2^-8) and Exp2Precise (degree
// 6, about 2^-23: weights kept in fp32). Included inside each vector path's namespace, beside its Simd.

inline constexpr float kExp2Coefficients[] = {0.999928176f, 0.693260968f, 0.242609501f, 0.0551710017f};
inline constexpr float kExp2PreciseCoefficients[] = {1.0f,           0.693147182f,   0.240226462f,
                                                     0.0555032864f,  0.00961848907f, 0.00133999204f,
                                                     0.000153457833f};
