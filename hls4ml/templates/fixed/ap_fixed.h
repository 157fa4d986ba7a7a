// Xilinx-style fixed-point types ap_fixed / ap_ufixed on the shared hls4ml_fixed core.
#ifndef HLS4ML_AP_FIXED_H
#define HLS4ML_AP_FIXED_H

#include "ap_int.h"

template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
struct ap_fixed_base : hls4ml_fixed::writable<hls4ml_fixed::ap_family, W, I, S, false, hls4ml_fixed::core_mode(Q),
                                              hls4ml_fixed::core_mode(O), N> {
    using base = hls4ml_fixed::writable<hls4ml_fixed::ap_family, W, I, S, false, hls4ml_fixed::core_mode(Q),
                                        hls4ml_fixed::core_mode(O), N>;
    using base::base;

    static constexpr int iwidth = I;
    static constexpr ap_q_mode qmode = Q;
    static constexpr ap_o_mode omode = O;
    constexpr int wl() const { return W; }
    constexpr int iwl() const { return I; }
    constexpr ap_q_mode q_mode() const { return Q; }
    constexpr ap_o_mode o_mode() const { return O; }
    constexpr int n_bits() const { return N; }

#ifndef HLS4ML_CSIM_NO_TEXT
    std::string to_string(int radix = 2, bool sign = S) const { return this->text(radix, sign); }
#endif

    // Implicit conversions of spec 9: integers take the integer part toward zero.
    operator double() const { return this->to_double(); }
    operator float() const { return this->to_float(); }
    operator bool() const { return this->raw_ != 0; }
    operator char() const { return char(this->to_int()); }
    operator int() const { return this->to_int(); }
    operator unsigned() const { return this->to_uint(); }
    operator long() const { return this->to_long(); }
    operator unsigned long() const { return this->to_ulong(); }
    operator long long() const { return this->to_int64(); }
    operator unsigned long long() const { return this->to_uint64(); }
};

#if __cplusplus < 201703L // C++14 needs namespace-scope definitions of odr-used static members
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N> constexpr int ap_fixed_base<W, I, S, Q, O, N>::iwidth;
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
constexpr ap_q_mode ap_fixed_base<W, I, S, Q, O, N>::qmode;
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
constexpr ap_o_mode ap_fixed_base<W, I, S, Q, O, N>::omode;
#endif

// The explicit base-class constructors are needed because inherited constructors are not
// candidates for copy-initialization from an object of the base class itself.
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> struct ap_fixed : ap_fixed_base<W, I, true, Q, O, N> {
    using base = ap_fixed_base<W, I, true, Q, O, N>;
    using base::base;
    ap_fixed(const base &value) : base(value) {}
};
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> struct ap_ufixed : ap_fixed_base<W, I, false, Q, O, N> {
    using base = ap_fixed_base<W, I, false, Q, O, N>;
    using base::base;
    ap_ufixed(const base &value) : base(value) {}
};

#endif
