// String constructor (ap spelling, also accepted by ac): "1.75", "-0x1.8", "0b10.01", "0o7.4",
// "0d12". The digits are converted exactly: the integer part and as many fraction bits as the
// target keeps, plus the next bit and a sticky bit, then the ordinary cast applies the modes.
#ifndef HLS4ML_FIXED_LITERAL_H
#define HLS4ML_FIXED_LITERAL_H

#include <string>

#include "quantize.h"

namespace hls4ml_fixed {

inline int digit_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

// Produces the binary fraction bits of the digits after the point, most significant first.
class fraction_bit_source {
  public:
    fraction_bit_source(std::string digits, int radix) : digits_(std::move(digits)), radix_(radix) {}

    bool next() {
        if (radix_ == 10) { // doubling the decimal fraction moves its next bit into the carry
            int carry = 0;
            for (auto position = digits_.rbegin(); position != digits_.rend(); ++position) {
                const int doubled = *position * 2 + carry;
                *position = char(doubled % 10);
                carry = doubled / 10;
            }
            return carry != 0;
        }
        if (pending_bits_ == 0) {
            pending_ = used_ < digits_.size() ? digits_[used_++] : 0;
            pending_bits_ = radix_ == 2 ? 1 : radix_ == 8 ? 3 : 4;
        }
        --pending_bits_;
        return (pending_ >> pending_bits_) & 1;
    }
    bool any_left() const {
        for (size_t k = radix_ == 10 ? 0 : used_; k < digits_.size(); ++k)
            if (digits_[k])
                return true;
        return (pending_ & ((1 << pending_bits_) - 1)) != 0;
    }

  private:
    std::string digits_;
    int radix_;
    size_t used_ = 0;
    int pending_ = 0, pending_bits_ = 0;
};

// Raw value of <W, I, S> with modes Q/O/N for the literal `text`.
template <int W, int I, bool S, quant Q, ovf O, int N> int_for_bits<W + !S> parse_literal(const char *text) {
    constexpr int F = W - I, lift = F < 0 ? -F : 0;
    constexpr int kept = W + 2 + lift; // low bits of the integer part that can matter
    using T = work_int<kept + 12>;
    const bool negative = *text == '-';
    text += (*text == '-' || *text == '+');
    int radix = 10;
    if (text[0] == '0' && text[1] != '\0') {
        const char p = char(text[1] | 0x20);
        radix = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : p == 'd' ? 10 : 0;
        text += radix ? 2 : 0;
        radix = radix ? radix : 10;
    }
    // Integer part modulo 2^kept; `huge` once it no longer fits (the value is then out of range).
    T integer(0);
    bool huge = false;
    for (; digit_value(*text) < radix; ++text) {
        integer = integer * T(radix) + T(digit_value(*text));
        huge = huge || integer > low_mask<T>(kept);
        integer = integer & low_mask<T>(kept);
    }
    std::string fraction_digits;
    if (*text == '.')
        for (++text; digit_value(*text) < radix; ++text)
            fraction_digits += char(digit_value(*text));
    fraction_bit_source fraction(fraction_digits, radix);
    // |value| * 2^F = z + (half, sticky)
    T z = sar_any(integer, lift);
    for (int k = 0; k < F; ++k) {
        z = shl(z, 1) + T(fraction.next() ? 1 : 0);
        huge = huge || z > low_mask<T>(W + 2);
        z = z & low_mask<T>(W + 2);
    }
    const bool half = F >= 0 ? fraction.next() : bit_at(integer, lift - 1);
    const bool sticky = fraction.any_left() || (F < 0 && any_below(integer, lift - 1));
    if (huge) // same low W+1 bits, certainly out of range (as in shift_left_bounded)
        z = (z & low_mask<T>(W + 1)) + shl(T(1), W + 2);
    // Two extra bits encode the discarded part exactly enough for every rounding mode.
    const T x = shl(z, 2) + T(half ? 2 : 0) + T(sticky ? 1 : 0);
    return raw_cast<int_for_bits<W + !S>>(quantize_overflow<W, S, Q, O, N, W + 6>(negative ? T(-x) : x, 2));
}

} // namespace hls4ml_fixed

#endif
