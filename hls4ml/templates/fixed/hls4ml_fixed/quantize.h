// The one write rule of fixed-point types (spec section 3): every value written into a declared
// type is scaled to the target LSB, quantized with the target's Q mode, then overflowed with
// its O mode. Casts from fixed types, C integers and doubles, and the integer parts used by
// to_int(), all funnel into quantize_overflow() below.
#ifndef HLS4ML_FIXED_QUANTIZE_H
#define HLS4ML_FIXED_QUANTIZE_H

#include "integers.h"

namespace hls4ml_fixed {

// Family-neutral mode names; the faces map ap_q_mode/ac_q_mode (different numbering) onto these.
enum class quant { trn, trn_zero, rnd, rnd_zero, rnd_min_inf, rnd_inf, rnd_conv, rnd_conv_odd };
enum class ovf { wrap, sat, sat_zero, sat_sym, wrap_sm };

// Whether the quantized result is floor(y) + 1 rather than floor(y). Only the discarded
// fraction f matters: `half` is its top bit (f >= 1/2), `sticky` says whether any lower bit is
// set, `odd` is the parity of floor(y).
constexpr bool rounds_up(quant mode, bool half, bool sticky, bool negative, bool odd) {
    switch (mode) {
    case quant::trn:
        return false;
    case quant::trn_zero:
        return negative && (half || sticky);
    case quant::rnd:
        return half;
    case quant::rnd_zero:
        return half && (sticky || negative);
    case quant::rnd_min_inf:
        return half && sticky;
    case quant::rnd_inf:
        return half && (sticky || !negative);
    case quant::rnd_conv:
        return half && (sticky || odd);
    case quant::rnd_conv_odd:
        return half && (sticky || !odd);
    }
    return false;
}

// x * 2^shift for shift >= 0 without ever needing more than W+4 bits: when the exact result
// cannot fit W+1 bits it is certainly out of range for a W-bit target, and it is replaced by a
// value with the same low W+1 bits and the same sign that is also out of range. That is all the
// overflow step looks at (wrapped bits, bit W for WRAP_SM, sign for saturation).
template <int W, class T> inline T shift_left_bounded(T x, int shift) {
    const bool negative = x < T(0);
    if (x == T(0) || bit_length_of(negative ? T(-x) : x) + shift <= W + 1)
        return shl(x, shift);
    const T low_bits = shift > W ? T(0) : (shl(x, shift) & low_mask<T>(W + 1));
    const T out_of_range = shl(T(1), W + 2);
    return negative ? low_bits - out_of_range : low_bits + out_of_range;
}

// AP_WRAP with N > 0 saturation bits: wrap, then force the top N bits (spec 3.2).
template <int W, bool S, int N, class T> inline T wrap_saturating_top(T bits, bool negative) {
    constexpr int n = min_of(N, W);
    if (!S)
        return assign_bits(bits, W - n, n, true);
    bits = assign_bits(bits, W - n, n - 1, !negative);
    return assign_bits(bits, W - 1, 1, negative);
}

// AP_WRAP_SM (sign-magnitude wrap, spec 3.2); `floor_y` supplies bit W taken before rounding.
template <int W, int N, class T> inline T wrap_sign_magnitude(T bits, T floor_y, bool negative) {
    constexpr int n = min_of(N, W);
    const T all = low_mask<T>(W);
    if (n == 0) {
        const bool dropped = bit_at(floor_y, W);
        if (dropped != bit_at(bits, W - 1))
            bits = ~bits & all;
        return assign_bits(bits, W - 1, 1, dropped);
    }
    if (n == 1) {
        if (negative != bit_at(bits, W - 1))
            bits = ~bits & all;
        return assign_bits(bits, W - 1, 1, negative);
    }
    if (bit_at(bits, W - n) == negative)
        bits = ~bits & all;
    bits = assign_bits(bits, W - n, n - 1, !negative);
    return assign_bits(bits, W - 1, 1, negative);
}

// Overflow step on the quantized integer z (spec 3.2). Returns the canonical W-bit raw value.
template <int W, bool S, ovf O, int N, class T> inline T apply_overflow(T z, T floor_y, bool negative) {
    if constexpr (O == ovf::wrap && N == 0) {
        return wrap_to<W, S>(z); // the common case: no range test at all
    } else {
        const T rmax = low_mask<T>(S ? W - 1 : W);
        const T rmin = S ? T(-rmax - T(1)) : T(0);
        constexpr bool symmetric = O == ovf::sat_sym && S && W > 1;
        if (z >= rmin && z <= rmax)
            return (symmetric && z == rmin) ? T(-rmax) : z;
        if constexpr (O == ovf::sat_zero)
            return T(0);
        else if constexpr (O == ovf::sat || O == ovf::sat_sym)
            return z > rmax ? rmax : (symmetric ? T(-rmax) : rmin);
        else if constexpr (O == ovf::wrap)
            return wrap_to<W, S>(wrap_saturating_top<W, S, N>(z & low_mask<T>(W), negative));
        else
            return wrap_to<W, S>(wrap_sign_magnitude<W, N>(z & low_mask<T>(W), floor_y, negative));
    }
}

// The cast: y = x * 2^-drop (drop > 0 discards fraction bits, drop < 0 scales up), quantized
// with Q and overflowed with O into a W-bit raw value. x has at most SourceBits significant bits
// (two's complement); T must hold max(SourceBits + 1, W + 5) bits. `drop` is an ordinary int so
// the same code serves doubles (runtime exponent); for fixed-to-fixed casts it is a constant
// and the branches fold away.
template <int W, bool S, quant Q, ovf O, int N, int SourceBits, class T> inline T quantize_overflow(T x, int drop) {
    static_assert(O != ovf::wrap_sm || S, "AP_WRAP_SM is only supported for signed types");
    static_assert(bits_of<T> >= W + 5, "work integer too narrow");
    const bool negative = x < T(0);
    T floor_y, z;
    if (drop > 0) {
        floor_y = sar_any(x, drop);
        z = floor_y;
        if (Q != quant::trn && rounds_up(Q, bit_at(x, drop - 1), any_below(x, drop - 1), negative,
                                         (floor_y & T(1)) != T(0)))
            z = z + T(1);
    } else if (SourceBits - drop < bits_of<T>) {
        floor_y = z = shl(x, -drop); // fits exactly (always, for typical fixed-to-fixed casts)
    } else {
        floor_y = z = shift_left_bounded<W>(x, -drop);
    }
    return apply_overflow<W, S, O, N>(z, floor_y, negative);
}

// Exact decomposition of a double: value = mantissa * 2^exponent, |mantissa| < 2^53.
// NaN is treated as +infinity (the vendor behaviour: SAT gives the maximum, WRAP gives 0).
struct double_parts {
    int64_t mantissa;
    int exponent;
    int infinity; // +1 / -1 for +inf (or NaN) / -inf, else 0
};

inline double_parts decompose(double value) {
    uint64_t bits;
    __builtin_memcpy(&bits, &value, sizeof bits);
    const bool negative = bits >> 63;
    const int biased = int((bits >> 52) & 0x7ff);
    const int64_t fraction = int64_t(bits & ((uint64_t(1) << 52) - 1));
    if (biased == 0x7ff)
        return {0, 0, (fraction != 0 || !negative) ? 1 : -1};
    const int64_t mantissa = biased ? fraction | (int64_t(1) << 52) : fraction;
    return {negative ? -mantissa : mantissa, (biased ? biased : 1) - 1075, 0};
}

// double -> raw of <W, I, S> with modes Q/O/N. Infinity is a value certainly out of range
// whose low bits are zero: the generic overflow step then yields max/min or 0 as specified.
template <int W, int I, bool S, quant Q, ovf O, int N> inline int_for_bits<W + !S> convert_double(double value) {
    using T = work_int<max_of(56, W + 5)>;
    const double_parts parts = decompose(value);
    const int64_t x = parts.infinity ? parts.infinity : parts.mantissa;
    const int drop = parts.infinity ? -(W + 2) : -(parts.exponent + (W - I));
    return raw_cast<int_for_bits<W + !S>>(quantize_overflow<W, S, Q, O, N, 54>(T(x), drop));
}

// Raw value of <W, I, S> -> nearest binary64/binary32 (ties to even), in one rounding step.
constexpr double power_of_two(int exponent) {
    double result = 1.0;
    for (; exponent > 0; --exponent)
        result *= 2.0;
    for (; exponent < 0; ++exponent)
        result *= 0.5;
    return result;
}

template <class Float, int W, int I, bool S, class Raw> inline Float to_binary_float(Raw raw) {
    constexpr bool is_double = sizeof(Float) == sizeof(double);
    constexpr int precision = is_double ? 53 : 24, min_exponent = is_double ? -1022 : -126;
    constexpr int max_exponent = is_double ? 1023 : 127, scale = I - W;
    if constexpr (W + !S <= precision && scale >= min_exponent && scale + W <= max_exponent) {
        // raw and 2^scale are exact in Float and so is their product: one multiply.
        constexpr Float factor = Float(power_of_two(scale));
        return Float(raw) * factor;
    } else {
        using T = work_int<W + !S + 1>; // one spare bit so that |raw| is representable
        if (raw == Raw(0))
            return Float(0);
        const bool negative = raw < Raw(0);
        const T magnitude = negative ? T(-raw_cast<T>(raw)) : raw_cast<T>(raw);
        const int length = bit_length_of(magnitude);
        const int top_exponent = length - 1 + scale;
        const int kept_bits = precision - (top_exponent < min_exponent ? min_exponent - top_exponent : 0);
        const int dropped = length - kept_bits > 0 ? length - kept_bits : 0;
        uint64_t kept = low_u64(sar_any(magnitude, dropped));
        if (dropped > 0 && bit_at(magnitude, dropped - 1) && (any_below(magnitude, dropped - 1) || (kept & 1)))
            ++kept;
        const Float result = Float(__builtin_ldexp(double(kept), scale + dropped));
        return negative ? -result : result;
    }
}

} // namespace hls4ml_fixed

#endif
