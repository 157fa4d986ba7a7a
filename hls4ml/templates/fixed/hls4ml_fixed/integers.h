// Raw integer toolkit: picks the storage integer for a bit width and gives every algorithm one
// vocabulary (shift, bit test, mask, wrap, convert) over native integers and wide_int alike.
// Every helper is a tiny inline template; with compile-time widths they fold to plain
// shifts/ands on native integers.
#ifndef HLS4ML_FIXED_INTEGERS_H
#define HLS4ML_FIXED_INTEGERS_H

#include <cstdint>
#include <type_traits>

#include "wide_int.h"

#ifndef HLS4ML_FIXED_MAX_W
#define HLS4ML_FIXED_MAX_W 4096
#endif

namespace hls4ml_fixed {

constexpr int max_of(int a, int b) { return a > b ? a : b; }
constexpr int min_of(int a, int b) { return a < b ? a : b; }

// Smallest signed integer holding `Bits` bits of two's complement value. Storage follows the
// value's width (int8 for an 8-bit weight), so arrays stay as compact as the vendor types.
template <int Bits>
using int_for_bits = std::conditional_t<
    (Bits <= 8), int8_t,
    std::conditional_t<
        (Bits <= 16), int16_t,
        std::conditional_t<(Bits <= 32), int32_t,
                           std::conditional_t<(Bits <= 64), int64_t,
                                              std::conditional_t<(Bits <= 128), int128, wide_int<(Bits + 63) / 64>>>>>>;

// Integer for intermediate computations: never narrower than 64 bits, which costs nothing on
// x86-64 and avoids integer-promotion surprises of 8/16-bit types.
template <int Bits> using work_int = int_for_bits<max_of(Bits, 64)>;

template <class T> struct int_traits {
    static constexpr int bits = 8 * int(sizeof(T));
    static constexpr bool native = true;
};
template <int N> struct int_traits<wide_int<N>> {
    static constexpr int bits = 64 * N;
    static constexpr bool native = false;
};
template <class T> constexpr int bits_of = int_traits<T>::bits;

template <class T> struct unsigned_of;
template <> struct unsigned_of<int8_t> { using type = uint8_t; };
template <> struct unsigned_of<int16_t> { using type = uint16_t; };
template <> struct unsigned_of<int32_t> { using type = uint32_t; };
template <> struct unsigned_of<int64_t> { using type = uint64_t; };
template <> struct unsigned_of<int128> { using type = uint128; };

// x * 2^count modulo the type width, 0 <= count < bits_of<T> (shifted as unsigned: no UB).
template <class T> inline T shl(T x, int count) {
    using U = typename unsigned_of<T>::type;
    return T(U(x) << count);
}
template <int N> inline wide_int<N> shl(const wide_int<N> &x, int count) { return x << count; }

// floor(x / 2^count), 0 <= count < bits_of<T>.
template <class T> inline T sar(T x, int count) { return T(x >> count); }

// Same as sar but any count >= 0 is allowed (shifting everything out leaves the sign).
template <class T> inline T sar_any(T x, int count) {
    if (count >= bits_of<T>)
        return x < T(0) ? T(-1) : T(0);
    return sar(x, count);
}

// 2^count - 1 for any count: 0 when count <= 0, all ones when count >= the width.
template <class T> inline T low_mask(int count) {
    if (count <= 0)
        return T(0);
    if (count >= bits_of<T>)
        return T(-1);
    return shl(T(1), count) - T(1);
}

// Bit `index` of the infinite sign extension of x.
template <class T> inline bool bit_at(T x, int index) { return (sar_any(x, index) & T(1)) != T(0); }

// Whether any of the bits below `count` is set.
template <class T> inline bool any_below(T x, int count) { return (x & low_mask<T>(count)) != T(0); }

// Sets (value = true) or clears `count` bits starting at `low`.
template <class T> inline T assign_bits(T x, int low, int count, bool value) {
    T mask = shl(low_mask<T>(count), low);
    return value ? (x | mask) : (x & ~mask);
}

// Canonical W-bit value of x: the low W bits, sign-extended if S, zero-extended otherwise.
template <int W, bool S, class T> inline T wrap_to(T x) {
    constexpr int B = bits_of<T>;
    if constexpr (W >= B)
        return x;
    else if constexpr (S)
        return sar(shl(x, B - W), B - W);
    else
        return x & low_mask<T>(W);
}

// Value-preserving (or, when narrowing, low-bit keeping) conversion between raw integer types.
template <class To, class From> inline To raw_cast(const From &x) {
    if constexpr (int_traits<To>::native && !int_traits<From>::native)
        return To(x.low_int128());
    else
        return To(x);
}

inline int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

// Number of significant bits of a non-negative value.
template <class T> inline int bit_length_of(T x) {
    if constexpr (!int_traits<T>::native)
        return x.bit_length();
    else if constexpr (bits_of<T> <= 64)
        return bit_length(uint64_t(x));
    else {
        uint64_t high = uint64_t(uint128(x) >> 64);
        return high ? 64 + bit_length(high) : bit_length(uint64_t(x));
    }
}

template <class T> inline uint64_t low_u64(const T &x) { return uint64_t(raw_cast<int64_t>(x)); }

} // namespace hls4ml_fixed

#endif
