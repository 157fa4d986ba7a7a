// Xilinx-style arbitrary precision integers and fixed-point types (ap_int, ap_uint, ap_fixed,
// ap_ufixed) on the shared hls4ml_fixed core. Including ap_int.h or ap_fixed.h gives both.
#ifndef HLS4ML_AP_INT_H
#define HLS4ML_AP_INT_H

#include "hls4ml_fixed/core.h"

#ifdef AP_INT_MAX_W
#define HLS4ML_FIXED_AP_MAX_W AP_INT_MAX_W
#else
#define HLS4ML_FIXED_AP_MAX_W HLS4ML_FIXED_MAX_W
#endif

enum ap_q_mode { AP_RND, AP_RND_ZERO, AP_RND_MIN_INF, AP_RND_INF, AP_RND_CONV, AP_TRN, AP_TRN_ZERO };
enum ap_o_mode { AP_SAT, AP_SAT_ZERO, AP_SAT_SYM, AP_WRAP, AP_WRAP_SM };
enum BaseMode { AP_BIN = 2, AP_OCT = 8, AP_DEC = 10, AP_HEX = 16 };

template <int W, bool S> struct ap_int_base;
template <int W> struct ap_int;
template <int W> struct ap_uint;
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N> struct ap_fixed_base;
template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0> struct ap_fixed;
template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0> struct ap_ufixed;

namespace hls4ml_fixed {

constexpr quant core_mode(ap_q_mode mode) {
    constexpr quant modes[] = {quant::rnd,     quant::rnd_zero, quant::rnd_min_inf, quant::rnd_inf,
                               quant::rnd_conv, quant::trn,      quant::trn_zero};
    return modes[mode];
}
constexpr ovf core_mode(ap_o_mode mode) {
    constexpr ovf modes[] = {ovf::sat, ovf::sat_zero, ovf::sat_sym, ovf::wrap, ovf::wrap_sm};
    return modes[mode];
}

// What the ap family does differently (see operators.h / value.h for where each is used).
struct ap_family {
    static constexpr int max_width = HLS4ML_FIXED_AP_MAX_W;
    static constexpr quant integer_rounding = quant::trn_zero; // to_int(), ap_int = ap_fixed
    static constexpr bool exact_double_compare = false;        // compares to_double()
    static constexpr bool bitwise_not_keeps_type = true;
    static constexpr bool increment_is_one = true; // ++ adds 1.0
    static constexpr bool integers_accept_fixed = true;
    static constexpr bool has_concat = true;
    static constexpr int negated_integer_width(int w, bool s) { return max_of(w, 1 + s) + 1; }

    template <int W, int I, bool S, bool IsInt>
    using result = std::conditional_t<IsInt, std::conditional_t<S, ap_int<W>, ap_uint<W>>,
                                      std::conditional_t<S, ap_fixed<W, I>, ap_ufixed<W, I>>>;

#ifndef HLS4ML_CSIM_NO_TEXT
    template <class V> static std::string format(const V &value, int radix, bool sign) {
        using T = format_int<V::width, V::integer_bits>;
        T raw = raw_cast<T>(value.raw_);
        // sign = false prints the bits as unsigned: the W-bit pattern of an integer, the (I+1)-bit
        // integer-part pattern and the fraction bits of a fixed value ("0x1e.cp0" for -1.25).
        if (radix != 2 && !sign)
            raw = raw & low_mask<T>(V::is_integer ? V::width : V::width + 1);
        if (V::is_integer)
            return ap_int_string(raw, V::width, radix, sign);
        return ap_fixed_string(raw, V::width, V::integer_bits, radix);
    }
    // Fixed values print their decimal value rounded to the stream precision, integers in full.
    template <class Stream, class V> static Stream &print(Stream &stream, const V &value) {
        using T = format_int<V::width, V::integer_bits>;
        const bool fixed = (stream.flags() & Stream::floatfield) == Stream::fixed;
        if (V::is_integer)
            return stream << value.text(10, V::is_signed);
        const int precision = int(stream.precision());
        return stream << stream_decimal(raw_cast<T>(value.raw_), V::width, V::integer_bits, precision, fixed);
    }
#endif
};

} // namespace hls4ml_fixed

template <int W, bool S>
struct ap_int_base : hls4ml_fixed::writable<hls4ml_fixed::ap_family, W, W, S, true, hls4ml_fixed::quant::trn_zero,
                                            hls4ml_fixed::ovf::wrap, 0> {
    using base = hls4ml_fixed::writable<hls4ml_fixed::ap_family, W, W, S, true, hls4ml_fixed::quant::trn_zero,
                                        hls4ml_fixed::ovf::wrap, 0>;
    using base::base;

#ifndef HLS4ML_CSIM_NO_TEXT
    std::string to_string(int radix = 2, bool sign = S) const { return this->text(radix, sign); }
#endif
    // Low 64 bits, so that an ap_int can index arrays and mix with C arithmetic.
    operator hls4ml_fixed::c_integer<S>() const { return hls4ml_fixed::c_integer<S>(this->to_int64()); }
    template <class V> auto concat(const V &low) const { return hls4ml_fixed::concat_bits(*this, low); }
};

// See ap_fixed.h for why the base-class constructors are spelled out.
template <int W> struct ap_int : ap_int_base<W, true> {
    using base = ap_int_base<W, true>;
    using base::base;
    ap_int(const base &value) : base(value) {}
};
template <int W> struct ap_uint : ap_int_base<W, false> {
    using base = ap_int_base<W, false>;
    using base::base;
    ap_uint(const base &value) : base(value) {}
};

#include "ap_fixed.h"

#endif
