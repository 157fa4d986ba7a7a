// Algorithmic C style integers (ac_int) on the shared hls4ml_fixed core; ac_fixed.h adds ac_fixed.
#ifndef HLS4ML_AC_INT_H
#define HLS4ML_AC_INT_H

#include "hls4ml_fixed/core.h"

enum ac_q_mode { AC_TRN, AC_RND, AC_TRN_ZERO, AC_RND_ZERO, AC_RND_INF, AC_RND_MIN_INF, AC_RND_CONV, AC_RND_CONV_ODD };
enum ac_o_mode { AC_WRAP, AC_SAT, AC_SAT_ZERO, AC_SAT_SYM };
enum ac_special_val { AC_VAL_DC, AC_VAL_0, AC_VAL_MIN, AC_VAL_MAX, AC_VAL_QUANTUM };
enum ac_base_mode { AC_BIN = 2, AC_OCT = 8, AC_DEC = 10, AC_HEX = 16 };

template <int W, bool S = true> class ac_int;
template <int W, int I, bool S = true, ac_q_mode Q = AC_TRN, ac_o_mode O = AC_WRAP> class ac_fixed;

namespace hls4ml_fixed {

constexpr quant core_mode(ac_q_mode mode) {
    constexpr quant modes[] = {quant::trn,     quant::rnd,         quant::trn_zero, quant::rnd_zero,
                               quant::rnd_inf, quant::rnd_min_inf, quant::rnd_conv, quant::rnd_conv_odd};
    return modes[mode];
}
constexpr ovf core_mode(ac_o_mode mode) {
    constexpr ovf modes[] = {ovf::wrap, ovf::sat, ovf::sat_zero, ovf::sat_sym};
    return modes[mode];
}

// What the ac family does differently (see operators.h / value.h for where each is used).
struct ac_family {
    static constexpr int max_width = HLS4ML_FIXED_MAX_W;
    static constexpr quant integer_rounding = quant::trn; // floor
    static constexpr bool exact_double_compare = true;
    static constexpr bool bitwise_not_keeps_type = false; // ~x is -x - LSB
    static constexpr bool increment_is_one = false;       // ++ adds one LSB
    static constexpr bool integers_accept_fixed = false;  // ac_int = ac_fixed does not compile
    static constexpr bool has_concat = false;
    static constexpr int negated_integer_width(int w, bool) { return w + 1; }

    template <int W, int I, bool S, bool IsInt>
    using result = std::conditional_t<IsInt, ac_int<W, S>, ac_fixed<W, I, S>>;

#ifndef HLS4ML_CSIM_NO_TEXT
    template <class V> static std::string format(const V &value, int radix, bool sign_magnitude) {
        using T = format_int<V::width, V::integer_bits>;
        return ac_string(raw_cast<T>(value.raw_), V::width, V::integer_bits, radix, sign_magnitude);
    }
    template <class Stream, class V> static Stream &print(Stream &stream, const V &value) {
        const bool hex = stream.flags() & Stream::hex, oct = stream.flags() & Stream::oct;
        return stream << value.text(hex ? 16 : oct ? 8 : 10, false);
    }
#endif
};

// Members shared by ac_int and ac_fixed.
template <int W, int I, bool S, bool IsInt, ac_q_mode Q, ac_o_mode O>
class ac_common : public writable<ac_family, W, I, S, IsInt, core_mode(Q), core_mode(O), 0> {
  public:
    using base = writable<ac_family, W, I, S, IsInt, core_mode(Q), core_mode(O), 0>;
    using base::base;

    static constexpr int i_width = I, e_width = 0;
    static constexpr bool sign = S;
    static constexpr ac_q_mode q_mode = Q;
    static constexpr ac_o_mode o_mode = O;

#ifndef HLS4ML_CSIM_NO_TEXT
    std::string to_string(ac_base_mode base_rep = AC_DEC, bool sign_mag = false) const {
        return this->text(base_rep, sign_mag);
    }
#endif
    // WS raw bits from `low`, signed like this value (spec 9.1).
    template <int WS> ac_int<WS, S> slc(int low) const {
        ac_int<WS, S> result;
        result.raw_ = wrap_to<WS, S>(sar_any(raw_cast<typename ac_int<WS, S>::raw_type>(this->raw_), low));
        return result;
    }
    template <int W2, bool S2> void set_slc(int low, const ac_int<W2, S2> &bits) {
        this->write_bits(low, W2, bits.raw_);
    }
    // Integer part (floor) as ac_int<max(I,1), S>.
    ac_int<max_of(I, 1), S> to_ac_int() const {
        ac_int<max_of(I, 1), S> result;
        result.raw_ = convert_fixed<max_of(I, 1), max_of(I, 1), S, quant::trn, ovf::wrap, 0>(*this);
        return result;
    }
    auto bit_complement() const {
        typename ac_family::template result<W, I, S, IsInt> result;
        result.raw_ = wrap_to<W, S>(decltype(this->raw_)(~this->raw_));
        return result;
    }
    template <ac_special_val V> ac_common &set_val() {
        using R = decltype(this->raw_);
        const R max = low_mask<R>(S ? W - 1 : W), min = S ? R(O == AC_SAT_SYM ? -max : -max - R(1)) : R(0);
        this->raw_ = V == AC_VAL_MAX ? max : V == AC_VAL_MIN ? min : V == AC_VAL_QUANTUM ? R(1) : R(0);
        return *this;
    }
};

#if __cplusplus < 201703L // C++14 needs namespace-scope definitions of odr-used static members
template <int W, int I, bool S, bool K, ac_q_mode Q, ac_o_mode O> constexpr int ac_common<W, I, S, K, Q, O>::i_width;
template <int W, int I, bool S, bool K, ac_q_mode Q, ac_o_mode O> constexpr int ac_common<W, I, S, K, Q, O>::e_width;
template <int W, int I, bool S, bool K, ac_q_mode Q, ac_o_mode O> constexpr bool ac_common<W, I, S, K, Q, O>::sign;
template <int W, int I, bool S, bool K, ac_q_mode Q, ac_o_mode O>
constexpr ac_q_mode ac_common<W, I, S, K, Q, O>::q_mode;
template <int W, int I, bool S, bool K, ac_q_mode Q, ac_o_mode O>
constexpr ac_o_mode ac_common<W, I, S, K, Q, O>::o_mode;
#endif

} // namespace hls4ml_fixed

template <int W, bool S> class ac_int : public hls4ml_fixed::ac_common<W, W, S, true, AC_TRN, AC_WRAP> {
    struct no_implicit_conversion {};

  public:
    using base = hls4ml_fixed::ac_common<W, W, S, true, AC_TRN, AC_WRAP>;
    using base::base;
    // Only up to 64 bits (wider: use to_int64()).
    using implicit_type = std::conditional_t<(W <= 64), hls4ml_fixed::c_integer<S>, no_implicit_conversion>;
    operator implicit_type() const { return implicit_type(this->to_int64()); }
};

#endif
