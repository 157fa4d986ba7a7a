// All operators, written once for both families against the core class. Result types follow
// spec 4 / 6.1 (full precision, default modes); the family policy only names the C++ class of
// a result and decides the few behaviours where ap and ac differ.
#ifndef HLS4ML_FIXED_OPERATORS_H
#define HLS4ML_FIXED_OPERATORS_H

#include <climits>
#include <iosfwd>

#include "value.h"

namespace hls4ml_fixed {

enum class op { add, sub, mul, div, mod, bit_and, bit_or, bit_xor };

struct shape {
    int w, i;
    bool s, integer;
};

// Result shape of a op b (spec 6.1; for integers it reduces to the table of spec 4).
constexpr shape result_shape(op operation, shape a, shape b) {
    const int fa = a.w - a.i, fb = b.w - b.i, f = max_of(fa, fb);
    // An unsigned operand needs one more integer bit when the other one is signed.
    const int ib = max_of(a.i + (b.s && !a.s), b.i + (a.s && !b.s));
    const bool s = a.s || b.s, integer = a.integer && b.integer;
    switch (operation) {
    case op::add:
        return {ib + 1 + f, ib + 1, s, integer};
    case op::sub:
        return {ib + 1 + f, ib + 1, true, integer};
    case op::mul:
        return {a.w + b.w, a.i + b.i, s, integer};
    case op::div:
        return {a.w + max_of(fb, 0) + b.s, a.i + fb + b.s, s, integer};
    case op::mod:
        return {min_of(a.w, b.w + (a.s && !b.s)), min_of(a.w, b.w + (a.s && !b.s)), a.s, integer};
    default:
        return {ib + f, ib, s, integer};
    }
}

template <class V> constexpr shape shape_of() { return {V::width, V::integer_bits, V::is_signed, V::is_integer}; }

template <op Operation, class A, class B> struct binary_result {
    static constexpr shape r = result_shape(Operation, shape_of<A>(), shape_of<B>());
    using type = typename A::family::template result<r.w, r.i, r.s, r.integer>;
};

// Truncating quotient r1 * 2^max(F2,0) / r2 (spec 6.2) or C remainder, in an integer that holds
// the shifted dividend and the divisor.
template <op Operation, class A, class B> inline auto quotient(const A &a, const B &b) {
    static_assert(Operation == op::div || (A::is_integer && B::is_integer), "hls4ml_fixed: % needs integer operands");
    constexpr int lift = max_of(B::fraction_bits, 0);
    using T = int_for_bits<max_of(A::width + !A::is_signed + lift, B::width + !B::is_signed) + 1>;
    const T dividend = shl(raw_cast<T>(a.raw_), lift), divisor = raw_cast<T>(b.raw_);
    return T(Operation == op::div ? dividend / divisor : dividend % divisor);
}

// Raw value of v scaled to `Fraction` fraction bits (>= its own), as the integer T.
template <class T, int Fraction, class V> inline T aligned(const V &value) {
    return shl(raw_cast<T>(value.raw_), Fraction - V::fraction_bits);
}

// a op b at full precision: align the binary points in the result's own integer (wide enough
// by construction), then one native integer operation.
template <op Operation, class F, int W1, int I1, bool S1, bool K1, int W2, int I2, bool S2, bool K2>
inline auto binary(const fixed_value<F, W1, I1, S1, K1> &a, const fixed_value<F, W2, I2, S2, K2> &b) {
    using A = fixed_value<F, W1, I1, S1, K1>;
    using B = fixed_value<F, W2, I2, S2, K2>;
    using R = typename binary_result<Operation, A, B>::type;
    using T = typename R::raw_type;
    R result;
    if constexpr (Operation == op::div || Operation == op::mod) {
        result.raw_ = raw_cast<T>(quotient<Operation>(a, b));
    } else if constexpr (Operation == op::mul) {
        result.raw_ = T(raw_cast<T>(a.raw_) * raw_cast<T>(b.raw_));
    } else {
        constexpr int f = max_of(W1 - I1, W2 - I2);
        const T x = aligned<T, f>(a), y = aligned<T, f>(b);
        if constexpr (Operation == op::add)
            result.raw_ = T(x + y);
        else if constexpr (Operation == op::sub)
            result.raw_ = T(x - y);
        else if constexpr (Operation == op::bit_and)
            result.raw_ = T(x & y);
        else if constexpr (Operation == op::bit_or)
            result.raw_ = T(x | y);
        else
            result.raw_ = T(x ^ y);
    }
    return result;
}

enum class relation { eq, ne, lt, gt, le, ge };
template <class T> constexpr bool holds(relation r, const T &x, const T &y) {
    return r == relation::eq   ? x == y
           : r == relation::ne ? x != y
           : r == relation::lt ? x < y
           : r == relation::gt ? x > y
           : r == relation::le ? x <= y
                               : x >= y;
}

// Exact comparison of two values: both aligned in an integer that holds them.
template <class F, int W1, int I1, bool S1, bool K1, int W2, int I2, bool S2, bool K2>
inline bool compare(relation r, const fixed_value<F, W1, I1, S1, K1> &a, const fixed_value<F, W2, I2, S2, K2> &b) {
    constexpr shape sum = result_shape(op::add, {W1, I1, S1, K1}, {W2, I2, S2, K2});
    using T = int_for_bits<sum.w + 1>;
    constexpr int f = max_of(W1 - I1, W2 - I2);
    return holds(r, aligned<T, f>(a), aligned<T, f>(b));
}

// Three-way comparison with a double: -1, 0, 1, or 2 when unordered (NaN). ap compares
// to_double() (spec 8), ac compares the exact values.
template <class V> inline int three_way(const V &a, double d) {
    if (d != d)
        return 2;
    if constexpr (!V::family::exact_double_compare) {
        const double x = a.to_double();
        return (x > d) - (x < d);
    } else {
        const double_parts parts = decompose(d);
        if (parts.infinity)
            return -parts.infinity;
        using T = work_int<max_of(V::width + !V::is_signed, 54) + 4>;
        const T m = T(parts.mantissa), raw = raw_cast<T>(a.raw_);
        const int shift = parts.exponent + V::fraction_bits; // d in units of a's LSB is m * 2^shift
        if (shift >= 0) {
            if (bit_length_of(m < T(0) ? T(-m) : m) + shift > V::width + 2)
                return m < T(0) ? 1 : -1; // |d| beyond every value of a
            const T scaled = shl(m, shift);
            return (raw > scaled) - (raw < scaled);
        }
        const T floor_d = sar_any(m, -shift);
        if (raw != floor_d)
            return raw < floor_d ? -1 : 1;
        return any_below(m, -shift) ? -1 : 0; // d = floor_d + fraction
    }
}
template <class V> inline bool compare(relation r, const V &a, double d) {
    const int c = three_way(a, d);
    return c == 2 ? r == relation::ne : holds(r, c, 0);
}
template <class V> inline bool compare(relation r, double d, const V &a) {
    const int c = three_way(a, d);
    return c == 2 ? r == relation::ne : holds(r, 0, c);
}

// a op b for core values, C integers on either side; % only for integers.
#define HLS4ML_FIXED_BINARY_OPERATOR(SYMBOL, OPERATION)                                                             \
    template <class F, int W1, int I1, bool S1, bool K1, int W2, int I2, bool S2, bool K2>                          \
    inline auto operator SYMBOL(const fixed_value<F, W1, I1, S1, K1> &a, const fixed_value<F, W2, I2, S2, K2> &b) { \
        return binary<OPERATION>(a, b);                                                                             \
    }                                                                                                               \
    template <class F, int W, int I, bool S, bool K, class C, std::enable_if_t<std::is_integral<C>::value, int> = 0> \
    inline auto operator SYMBOL(const fixed_value<F, W, I, S, K> &a, C b) {                                         \
        return binary<OPERATION>(a, c_int_value<F>(b));                                                             \
    }                                                                                                               \
    template <class F, int W, int I, bool S, bool K, class C, std::enable_if_t<std::is_integral<C>::value, int> = 0> \
    inline auto operator SYMBOL(C a, const fixed_value<F, W, I, S, K> &b) {                                         \
        return binary<OPERATION>(c_int_value<F>(a), b);                                                             \
    }

HLS4ML_FIXED_BINARY_OPERATOR(+, op::add)
HLS4ML_FIXED_BINARY_OPERATOR(-, op::sub)
HLS4ML_FIXED_BINARY_OPERATOR(*, op::mul)
HLS4ML_FIXED_BINARY_OPERATOR(/, op::div)
HLS4ML_FIXED_BINARY_OPERATOR(%, op::mod)
HLS4ML_FIXED_BINARY_OPERATOR(&, op::bit_and)
HLS4ML_FIXED_BINARY_OPERATOR(|, op::bit_or)
HLS4ML_FIXED_BINARY_OPERATOR(^, op::bit_xor)
#undef HLS4ML_FIXED_BINARY_OPERATOR

// Comparisons with core values, C integers and doubles on either side.
#define HLS4ML_FIXED_COMPARISON(SYMBOL, RELATION)                                                                   \
    template <class F, int W1, int I1, bool S1, bool K1, int W2, int I2, bool S2, bool K2>                          \
    inline bool operator SYMBOL(const fixed_value<F, W1, I1, S1, K1> &a, const fixed_value<F, W2, I2, S2, K2> &b) { \
        return compare(RELATION, a, b);                                                                             \
    }                                                                                                               \
    template <class F, int W, int I, bool S, bool K, class C, std::enable_if_t<std::is_integral<C>::value, int> = 0> \
    inline bool operator SYMBOL(const fixed_value<F, W, I, S, K> &a, C b) {                                         \
        return compare(RELATION, a, c_int_value<F>(b));                                                             \
    }                                                                                                               \
    template <class F, int W, int I, bool S, bool K, class C, std::enable_if_t<std::is_integral<C>::value, int> = 0> \
    inline bool operator SYMBOL(C a, const fixed_value<F, W, I, S, K> &b) {                                         \
        return compare(RELATION, c_int_value<F>(a), b);                                                             \
    }                                                                                                               \
    template <class F, int W, int I, bool S, bool K>                                                                \
    inline bool operator SYMBOL(const fixed_value<F, W, I, S, K> &a, double b) {                                    \
        return compare(RELATION, a, b);                                                                             \
    }                                                                                                               \
    template <class F, int W, int I, bool S, bool K>                                                                \
    inline bool operator SYMBOL(double a, const fixed_value<F, W, I, S, K> &b) {                                    \
        return compare(RELATION, a, b);                                                                             \
    }

HLS4ML_FIXED_COMPARISON(==, relation::eq)
HLS4ML_FIXED_COMPARISON(!=, relation::ne)
HLS4ML_FIXED_COMPARISON(<, relation::lt)
HLS4ML_FIXED_COMPARISON(>, relation::gt)
HLS4ML_FIXED_COMPARISON(<=, relation::le)
HLS4ML_FIXED_COMPARISON(>=, relation::ge)
#undef HLS4ML_FIXED_COMPARISON

// -a: one more bit, always signed (ap integers: max(W, 1 + S) + 1 bits, per the policy).
template <class F, int W, int I, bool S, bool K> inline auto operator-(const fixed_value<F, W, I, S, K> &a) {
    constexpr int w = K ? F::negated_integer_width(W, S) : W + 1;
    using R = typename F::template result<w, K ? w : I + 1, true, K>;
    R result;
    result.raw_ = typename R::raw_type(-raw_cast<typename R::raw_type>(a.raw_));
    return result;
}

template <class T> using if_fixed = std::enable_if_t<is_fixed<T>::value, int>;

template <class T, if_fixed<T> = 0> inline T operator+(const T &a) { return a; }

// ~a: ap flips the W raw bits (same type); ac is arithmetic, -a - LSB in <W+!S, I+!S, signed>.
template <class T, if_fixed<T> = 0> inline auto operator~(const T &a) {
    if constexpr (T::family::bitwise_not_keeps_type) {
        T result = a;
        result.raw_ = wrap_to<T::width, T::is_signed>(typename T::raw_type(~a.raw_));
        return result;
    } else {
        constexpr int extra = !T::is_signed;
        using R = typename T::family::template result<T::width + extra, T::integer_bits + extra, true, T::is_integer>;
        R result;
        result.raw_ = typename R::raw_type(~raw_cast<typename R::raw_type>(a.raw_));
        return result;
    }
}

// Shifts keep the type and move raw bits: no quantization, no saturation (spec 7).
template <class T> inline T shifted(T a, long long count) {
    using R = typename T::raw_type;
    if (count >= 0)
        a.raw_ = count >= T::width ? R(0) : wrap_to<T::width, T::is_signed>(shl(a.raw_, int(count)));
    else
        a.raw_ = count <= -T::width ? R(a.raw_ < R(0) ? -1 : 0) : sar(a.raw_, int(-count));
    return a;
}
template <class K> inline long long shift_count(const K &amount) {
    if constexpr (is_fixed<K>::value)
        return amount.to_int64();
    else
        return (long long)amount;
}
template <class K> constexpr bool is_shift_amount = std::is_integral<K>::value || is_fixed<K>::value;

template <class T, class K, std::enable_if_t<is_fixed<T>::value && is_shift_amount<K>, int> = 0>
inline T operator<<(const T &a, const K &amount) {
    return shifted(a, shift_count(amount));
}
template <class T, class K, std::enable_if_t<is_fixed<T>::value && is_shift_amount<K>, int> = 0>
inline T operator>>(const T &a, const K &amount) {
    const long long count = shift_count(amount);
    return shifted(a, count == LLONG_MIN ? LLONG_MAX : -count);
}

// a op= b is a = a op b: the full-precision result is written back with a's modes (spec 3.4).
#define HLS4ML_FIXED_COMPOUND(SYMBOL)                                                                               \
    template <class T, class U, if_fixed<T> = 0> inline T &operator SYMBOL##=(T &a, const U &b) {                   \
        a = T(a SYMBOL b);                                                                                          \
        return a;                                                                                                   \
    }
HLS4ML_FIXED_COMPOUND(+)
HLS4ML_FIXED_COMPOUND(-)
HLS4ML_FIXED_COMPOUND(*)
HLS4ML_FIXED_COMPOUND(/)
HLS4ML_FIXED_COMPOUND(%)
HLS4ML_FIXED_COMPOUND(&)
HLS4ML_FIXED_COMPOUND(|)
HLS4ML_FIXED_COMPOUND(^)
HLS4ML_FIXED_COMPOUND(<<)
HLS4ML_FIXED_COMPOUND(>>)
#undef HLS4ML_FIXED_COMPOUND

// ++/--: ap steps by 1.0, ac by one LSB (spec 6.5); either way written back with the modes.
template <class T> inline auto increment_step() {
    constexpr int exponent = T::family::increment_is_one ? 0 : -T::fraction_bits;
    fixed_value<typename T::family, 1, 1 + exponent, false, T::is_integer> step;
    step.raw_ = 1;
    return step;
}
template <class T, if_fixed<T> = 0> inline T &operator++(T &a) { return a += increment_step<T>(); }
template <class T, if_fixed<T> = 0> inline T &operator--(T &a) { return a -= increment_step<T>(); }
template <class T, if_fixed<T> = 0> inline T operator++(T &a, int) {
    const T old = a;
    ++a;
    return old;
}
template <class T, if_fixed<T> = 0> inline T operator--(T &a, int) {
    const T old = a;
    --a;
    return old;
}

// Concatenation of raw bit patterns (ap): (a, b) is unsigned, W1 + W2 bits, a in the high part.
template <class F, int W1, int I1, bool S1, bool K1, int W2, int I2, bool S2, bool K2>
inline auto concat_bits(const fixed_value<F, W1, I1, S1, K1> &a, const fixed_value<F, W2, I2, S2, K2> &b) {
    using R = typename F::template result<W1 + W2, W1 + W2, false, true>;
    using T = typename R::raw_type;
    R result;
    result.raw_ = T(shl(raw_cast<T>(a.raw_) & low_mask<T>(W1), W2) | (raw_cast<T>(b.raw_) & low_mask<T>(W2)));
    return result;
}
template <class F, int W1, int I1, bool S1, bool K1, int W2, int I2, bool S2, bool K2,
          std::enable_if_t<F::has_concat, int> = 0>
inline auto operator,(const fixed_value<F, W1, I1, S1, K1> &a, const fixed_value<F, W2, I2, S2, K2> &b) {
    return concat_bits(a, b);
}

#ifndef HLS4ML_CSIM_NO_TEXT
template <class Char, class Traits, class F, int W, int I, bool S, bool K>
inline std::basic_ostream<Char, Traits> &operator<<(std::basic_ostream<Char, Traits> &stream,
                                                    const fixed_value<F, W, I, S, K> &value) {
    return F::print(stream, value);
}
#else // deleted rather than absent: the implicit conversion to double would print something else
template <class Char, class Traits, class F, int W, int I, bool S, bool K>
std::basic_ostream<Char, Traits> &operator<<(std::basic_ostream<Char, Traits> &stream,
                                             const fixed_value<F, W, I, S, K> &value) = delete;
#endif

} // namespace hls4ml_fixed

#endif
