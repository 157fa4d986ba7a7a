// The core value class shared by both faces, its bit/range proxies, and `writable`, the layer
// that adds the constructors (every write goes through the cast of quantize.h).
#ifndef HLS4ML_FIXED_VALUE_H
#define HLS4ML_FIXED_VALUE_H

#include <type_traits>

#ifndef HLS4ML_CSIM_NO_TEXT
#include <string>

#include "format.h"
#endif
#include "quantize.h"

namespace hls4ml_fixed {

// A separate template so that g++ names the offending width in the error:
// "In instantiation of 'width_check<5000, 4096>' ... the comparison reduces to (5000 <= 4096)".
template <int W, int Max> struct width_check {
    static_assert(W <= Max, "hls4ml_fixed: bit width W exceeds the maximum width; define HLS4ML_FIXED_MAX_W "
                            "(default 4096) or, for ap types, AP_INT_MAX_W to a larger value before including "
                            "the headers");
    static constexpr bool ok = true;
};

template <class Value> class bit_ref;
template <class Value> class range_ref;

// Cast of any core value into the raw integer of <W, I, S> with modes Q/O/N (spec 3).
template <int W, int I, bool S, quant Q, ovf O, int N, class Source>
inline int_for_bits<W + !S> convert_fixed(const Source &source) {
    constexpr int source_bits = Source::width + !Source::is_signed;
    constexpr int drop = Source::fraction_bits - (W - I);
    constexpr int lift = drop < 0 ? min_of(-drop, W + 2) : 0; // exact left shifts stay exact
    using T = work_int<max_of(source_bits + 1 + lift, W + 5)>;
    return raw_cast<int_for_bits<W + !S>>(
        quantize_overflow<W, S, Q, O, N, source_bits>(raw_cast<T>(source.raw_), drop));
}

// Value r * 2^(I-W) held as the raw integer r. The raw integer is always canonical (sign- or
// zero-extended to its storage type), so every operation is plain integer arithmetic after
// aligning binary points. IsInt marks ap_int/ac_int, which the family policy needs to name
// result types; Family is the policy of the face (ap_family or ac_family).
template <class Family, int W, int I, bool S, bool IsInt> class fixed_value {
    static_assert(W >= 1, "hls4ml_fixed: bit width must be at least 1");
    static_assert(width_check<W, Family::max_width>::ok, "");

  public:
    using family = Family;
    using core_type = fixed_value;
    using raw_type = int_for_bits<W + !S>;
    static constexpr int width = W, integer_bits = I, fraction_bits = W - I;
    static constexpr bool is_signed = S, is_integer = IsInt;

    raw_type raw_{}; // default construction gives 0, unlike the vendor types

    constexpr int length() const { return W; }
    bool is_neg() const { return raw_ < raw_type(0); }
    bool operator!() const { return raw_ == raw_type(0); }

    double to_double() const { return to_binary_float<double, W, I, S>(raw_); }
    float to_float() const { return to_binary_float<float, W, I, S>(raw_); }
    // Integer part (ap: toward zero, ac: floor, per the policy), then the low bits.
    int to_int() const { return int(integer_part<32>()); }
    unsigned to_uint() const { return unsigned(integer_part<32>()); }
    long to_long() const { return long(integer_part<64>()); }
    unsigned long to_ulong() const { return (unsigned long)(integer_part<64>()); }
    long long to_int64() const { return (long long)(integer_part<64>()); }
    unsigned long long to_uint64() const { return (unsigned long long)(integer_part<64>()); }

    // Raw bit i (0 = LSB); get_bit/set_bit count from the binary point instead.
    bool operator[](int index) const { return bit_at(raw_, index); }
    bit_ref<fixed_value> operator[](int index) { return bit_ref<fixed_value>(this, index); }
    bool get_bit(int index) const { return bit_at(raw_, index + W - I); }
    void set_bit(int index, bool value) { write_bits(index + W - I, 1, int(value)); }

    // Bits high..low (high >= low) read as an unsigned integer; assignable when not const.
    range_ref<fixed_value> range(int high, int low) { return range_ref<fixed_value>(this, high, low); }
    range_ref<fixed_value> range() { return range(W - 1, 0); }
    range_ref<fixed_value> operator()(int high, int low) { return range(high, low); }
    auto range(int high, int low) const {
        return range_ref<fixed_value>(const_cast<fixed_value *>(this), high, low).get();
    }
    auto range() const { return range(W - 1, 0); }
    auto operator()(int high, int low) const { return range(high, low); }

    bool or_reduce() const { return raw_ != raw_type(0); }
    bool and_reduce() const { return (raw_ & low_mask<raw_type>(W)) == low_mask<raw_type>(W); }
    bool xor_reduce() const {
        bool parity = false;
        for (int low = 0; low < W; low += 64) {
            uint64_t chunk = low_u64(sar(raw_, low));
            if (W - low < 64)
                chunk &= (uint64_t(1) << (W - low)) - 1;
            parity ^= __builtin_parityll(chunk) != 0;
        }
        return parity;
    }
    bool nor_reduce() const { return !or_reduce(); }
    bool nand_reduce() const { return !and_reduce(); }
    bool xnor_reduce() const { return !xor_reduce(); }

    // Leading zeros of the W-bit pattern (ap countLeadingZeros); leading copies of the sign bit
    // below the MSB (ac leading_sign; leading zeros for unsigned types).
    int countLeadingZeros() const {
        return W - bit_length_of(raw_cast<pattern_type>(raw_) & low_mask<pattern_type>(W));
    }
    int leading_sign() const {
        const bool negative = raw_ < raw_type(0);
        return W - int(S) - bit_length_of(negative ? raw_type(~raw_) : raw_);
    }

    // Text in the family's format (the faces expose it as to_string with their own defaults).
#ifndef HLS4ML_CSIM_NO_TEXT
    std::string text(int radix, bool sign) const { return Family::format(*this, radix, sign); }
#endif

    // Replaces `count` bits from `low` with the low bits of the raw integer `bits`.
    template <class Bits> void write_bits(int low, int count, const Bits &bits) {
        count = min_of(count, W - low);
        if (low < 0 || count <= 0)
            return;
        const raw_type mask = shl(low_mask<raw_type>(count), low);
        raw_ = wrap_to<W, S>(raw_type((raw_ & ~mask) | (shl(raw_cast<raw_type>(bits), low) & mask)));
    }

  private:
    using pattern_type = int_for_bits<W + 1>;
    template <int Bits> int_for_bits<Bits> integer_part() const {
        return convert_fixed<Bits, Bits, true, Family::integer_rounding, ovf::wrap, 0>(*this);
    }
};

#if __cplusplus < 201703L // C++14 needs namespace-scope definitions of odr-used static members
template <class F, int W, int I, bool S, bool K> constexpr int fixed_value<F, W, I, S, K>::width;
template <class F, int W, int I, bool S, bool K> constexpr int fixed_value<F, W, I, S, K>::integer_bits;
template <class F, int W, int I, bool S, bool K> constexpr int fixed_value<F, W, I, S, K>::fraction_bits;
template <class F, int W, int I, bool S, bool K> constexpr bool fixed_value<F, W, I, S, K>::is_signed;
template <class F, int W, int I, bool S, bool K> constexpr bool fixed_value<F, W, I, S, K>::is_integer;
#endif

// Proxy for one bit: reads as bool, writes keep the owner canonical.
template <class Value> class bit_ref {
  public:
    bit_ref(Value *owner, int index) : owner_(owner), index_(index) {}
    bit_ref(const bit_ref &) = default;
    operator bool() const { return bit_at(owner_->raw_, index_); }
    bool to_bool() const { return bool(*this); }
    bool operator~() const { return !bool(*this); }
    int length() const { return 1; }
    bit_ref &operator=(bool value) {
        owner_->write_bits(index_, 1, int(value));
        return *this;
    }
    bit_ref &operator=(const bit_ref &other) { return *this = bool(other); }

  private:
    Value *owner_;
    int index_;
};

// Raw bits of a value as written by set_slc/range assignment: C integers as themselves, core
// values as their raw integer, proxies as the bits they refer to.
template <class Bits> inline auto raw_bits_of(const Bits &bits) {
    if constexpr (std::is_integral<Bits>::value)
        return (long long)bits;
    else
        return bits.raw_;
}
template <class V> inline auto raw_bits_of(const range_ref<V> &range) { return range.get().raw_; }
template <class V> inline long long raw_bits_of(const bit_ref<V> &bit) { return bool(bit); }

// Proxy for bits high..low of a value: reads as the family's unsigned integer of the owner's
// width (ap_uint<W>), also converts to unsigned long long; assignment writes the bits.
template <class Value> class range_ref {
  public:
    using value_type = typename Value::family::template result<Value::width, Value::width, false, true>;
    range_ref(Value *owner, int high, int low) : owner_(owner), high_(high), low_(low) {}
    range_ref(const range_ref &) = default;

    value_type get() const {
        using R = typename value_type::raw_type;
        value_type result;
        result.raw_ = sar_any(raw_cast<R>(owner_->raw_), low_) & low_mask<R>(high_ - low_ + 1);
        return result;
    }
    operator value_type() const { return get(); }
    operator unsigned long long() const { return get().to_uint64(); }
    int length() const { return high_ - low_ + 1; }
    int to_int() const { return get().to_int(); }
    unsigned to_uint() const { return get().to_uint(); }
    long long to_int64() const { return get().to_int64(); }
    unsigned long long to_uint64() const { return get().to_uint64(); }

    template <class Bits> range_ref &operator=(const Bits &bits) {
        owner_->write_bits(low_, length(), raw_bits_of(bits));
        return *this;
    }
    range_ref &operator=(const range_ref &other) { return *this = other.get(); }

  private:
    Value *owner_;
    int high_, low_;
};

// (own void_t: std::void_t is C++17-only and kernels may be built with -std=c++14)
template <class...> struct void_type { using type = void; };
template <class T, class = void> struct is_fixed : std::false_type {};
template <class T> struct is_fixed<T, typename void_type<typename T::core_type>::type> : std::true_type {};

// C integers take part as fixed values <bits, bits, signed?> (bool: <1, 1, unsigned>).
template <class C> constexpr int c_int_bits = std::is_same<C, bool>::value ? 1 : 8 * int(sizeof(C));
template <class Family, class C>
inline fixed_value<Family, c_int_bits<C>, c_int_bits<C>, std::is_signed<C>::value, true> c_int_value(C value) {
    fixed_value<Family, c_int_bits<C>, c_int_bits<C>, std::is_signed<C>::value, true> result;
    result.raw_ = decltype(result.raw_)(value);
    return result;
}

// Integer type of the implicit conversion of integer types (long long / unsigned long long).
template <bool S> using c_integer = std::conditional_t<S, long long, unsigned long long>;

template <int W, int I, bool S, quant Q, ovf O, int N>
int_for_bits<W + !S> parse_literal(const char *text); // string.h

// Adds the constructors: from any value of the family (ac_int accepts only integers), C
// integers, double/float, strings, bit and range proxies. All writes apply the modes.
template <class Family, int W, int I, bool S, bool IsInt, quant Q, ovf O, int N>
class writable : public fixed_value<Family, W, I, S, IsInt> {
    template <class Source>
    static constexpr bool accepts = std::is_same<typename Source::family, Family>::value &&
                                    (!IsInt || Source::is_integer || Family::integers_accept_fixed);

  public:
    writable() = default;
    template <class Source, std::enable_if_t<is_fixed<Source>::value, int> = 0> writable(Source source) {
        static_assert(accepts<Source>, "hls4ml_fixed: no conversion between these types (ac_int from ac_fixed: "
                                       "use to_ac_int() or slc)");
        this->raw_ = convert_fixed<W, I, S, Q, O, N>(static_cast<const typename Source::core_type &>(source));
    }
    template <class C, std::enable_if_t<std::is_integral<C>::value, int> = 0> writable(C value) {
        this->raw_ = convert_fixed<W, I, S, Q, O, N>(c_int_value<Family>(value));
    }
    writable(double value) { this->raw_ = convert_double<W, I, S, Q, O, N>(value); }
#ifndef HLS4ML_CSIM_NO_TEXT
    writable(const char *text) { this->raw_ = parse_literal<W, I, S, Q, O, N>(text); }
#else
    writable(const char *text) = delete; // string literals need the text headers (core.h)
#endif
    template <class V> writable(const range_ref<V> &range) : writable(range.get()) {}
    template <class V> writable(const bit_ref<V> &bit) : writable(bool(bit)) {}
};

} // namespace hls4ml_fixed

#endif
