// Text output: to_string() of both families (exact formats of the golden conv files, spec 9.2).
// The routines take the width and integer bits as run-time arguments and are templates only on
// the work integer, so a program with many fixed types instantiates them a handful of times.
#ifndef HLS4ML_FIXED_FORMAT_H
#define HLS4ML_FIXED_FORMAT_H

#include <string>

#include "integers.h"

namespace hls4ml_fixed {

// n /= divisor for a non-negative n; returns the remainder.
template <class T> inline uint32_t divide_small(T &n, uint32_t divisor) {
    if constexpr (int_traits<T>::native) {
        const uint32_t remainder = uint32_t(n % T(divisor));
        n = T(n / T(divisor));
        return remainder;
    } else {
        return n.divide_small(divisor);
    }
}

// Digits of a non-negative n in radix 2, 8, 10 or 16, left-padded with zeros to min_digits.
template <class T> std::string digits(T n, int radix, bool upper, int min_digits = 1) {
    const char *symbols = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    const int group = radix == 2 ? 1 : radix == 8 ? 3 : 4;
    std::string reversed;
    while (n != T(0) || int(reversed.size()) < min_digits) {
        if (radix == 10) {
            reversed += symbols[divide_small(n, 10)];
        } else {
            reversed += symbols[low_u64(n) & uint64_t(radix - 1)];
            n = sar(n, group);
        }
    }
    return std::string(reversed.rbegin(), reversed.rend());
}

inline int digit_group(int radix) { return radix == 2 ? 1 : radix == 8 ? 3 : 4; }
inline const char *radix_prefix(int radix) { return radix == 2 ? "0b" : radix == 8 ? "0o" : "0x"; }
inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Integer part (exact, even when the LSB is above 1) and fraction bits of a magnitude.
template <class T> struct magnitude_parts {
    T integer, fraction;
    magnitude_parts(T magnitude, int fraction_bits)
        : integer(fraction_bits >= 0 ? sar_any(magnitude, fraction_bits) : shl(magnitude, -fraction_bits)),
          fraction(magnitude & low_mask<T>(fraction_bits)) {}
};

// Exact decimal digits of fraction / 2^fraction_bits (terminates after at most that many digits).
template <class T> std::string decimal_fraction(T fraction, int fraction_bits) {
    std::string text;
    while (fraction != T(0)) {
        fraction = shl(fraction, 3) + shl(fraction, 1); // * 10
        text += char('0' + low_u64(sar_any(fraction, fraction_bits)));
        fraction = fraction & low_mask<T>(fraction_bits);
    }
    return text;
}

// Fraction bits as radix-2^k digits, the last digit padded with zero bits on the right.
template <class T> std::string radix_fraction(T fraction, int fraction_bits, int radix, bool upper) {
    const int count = ceil_div(fraction_bits, digit_group(radix));
    return digits(shl(fraction, count * digit_group(radix) - fraction_bits), radix, upper, count);
}

// ap: digits of a non-negative integer part, written as the bit string "0" + binary would be
// grouped ("0x0a" for 10, "0x1c" for 28).
template <class T> std::string ap_grouped(T n, int radix) {
    const int bits = n != T(0) ? bit_length_of(n) + 1 : 1;
    return digits(n, radix, false, ceil_div(bits, digit_group(radix)));
}

// ap_fixed strings; r is the canonical raw value. Types with I > W print their integer part
// modulo 2^(W+1), as the vendor does (golden rows 4,6 and 24,40); I >= 64 uses upper-case hex.
template <class T> std::string ap_fixed_string(T r, int W, int I, int radix) {
    const int F = W - I;
    const bool negative = r < T(0);
    const std::string sign = negative ? "-" : "";
    const T magnitude = negative ? T(-r) : r;
    const T wrapped = I > W ? T(shl(magnitude, -F) & low_mask<T>(W + 1)) : T(0);
    const magnitude_parts<T> parts(magnitude, F);
    if (radix == 10) {
        if (I > W)
            return sign + digits(wrapped, 10, false);
        std::string text = sign + digits(parts.integer, 10, false);
        return parts.fraction != T(0) ? text + "." + decimal_fraction(parts.fraction, F) : text;
    }
    if (I >= 64 && r == T(0))
        return "0";
    if (radix == 2) {
        std::string text = "0b";
        const T pattern = I > W ? T(shl(r, -F) & low_mask<T>(W + 1)) : sar_any(r, F);
        if (I <= 0 || pattern == T(0))
            text += "0";
        else if (pattern > T(0))
            text += "0" + digits(pattern, 2, false);
        else
            text += digits(pattern & low_mask<T>(I + 1), 2, false, I + 1);
        if (F > 0 && any_below(r, F))
            text += "." + digits(r & low_mask<T>(F), 2, false, F);
        return text;
    }
    std::string text = sign + radix_prefix(radix);
    if (I >= 64) {
        const std::string natural = digits(parts.integer, radix, true);
        text += (int(natural.size()) < ceil_div(W + 1, digit_group(radix)) ? "0" : "") + natural;
    } else {
        text += ap_grouped(I > W ? wrapped : parts.integer, radix);
    }
    if (I <= W && parts.fraction != T(0))
        text += "." + radix_fraction(parts.fraction, F, radix, false) + "p0";
    return text;
}

// ap_int strings: binary is the W-bit pattern; other radices a signed or unsigned magnitude.
template <class T> std::string ap_int_string(T r, int W, int radix, bool sign) {
    if (radix == 2)
        return "0b" + digits(r & low_mask<T>(W), 2, false);
    const bool negative = sign && r < T(0);
    const T magnitude = negative ? T(-r) : T(r & low_mask<T>(W));
    const std::string text = digits(magnitude, radix, false);
    return (negative ? "-" : "") + (radix == 10 ? text : radix_prefix(radix) + text);
}

// ac strings: decimal without a leading zero before the point (".5"); the other radices print
// two's complement with the fewest integer digits that keep the sign ("0xE.C" for -1.25).
template <class T> std::string ac_string(T r, int W, int I, int radix, bool sign_magnitude) {
    const int F = W - I;
    const bool negative = r < T(0);
    if (radix == 10) {
        const magnitude_parts<T> parts(negative ? T(-r) : r, F);
        std::string body = parts.integer != T(0) ? digits(parts.integer, 10, false) : "";
        if (parts.fraction != T(0))
            body += "." + decimal_fraction(parts.fraction, F);
        else if (F > 32)
            body += ".0"; // the vendor prints a fraction for integral values of wide-fraction types
        return (negative ? "-" : "") + (body.empty() ? "0" : body);
    }
    if (sign_magnitude && negative)
        return "-" + ac_string(T(-r), W, I, radix, false);
    const T integer = F >= 0 ? sar_any(r, F) : shl(r, -F);
    const int bits = bit_length_of(integer < T(0) ? T(~integer) : integer) + 1;
    const int count = ceil_div(bits, digit_group(radix));
    const T pattern = integer & low_mask<T>(count * digit_group(radix)); // sign-extended to whole digits
    std::string text = radix_prefix(radix) + digits(pattern, radix, true, count);
    if (F > 0)
        text += "." + radix_fraction(r & low_mask<T>(F), F, radix, true);
    return text;
}

// Rounds the decimal digit string `digits` (value 0.d1d2... * 10^(exponent + 1)) to `keep`
// digits, ties away from zero (the vendor streams 3.140625 as 3.14063, not 3.14062).
inline void round_decimal(std::string &digits, int &exponent, int keep) {
    if (int(digits.size()) > keep) {
        const bool up = keep >= 0 && digits[size_t(keep)] >= '5';
        digits.resize(size_t(keep > 0 ? keep : 0));
        int position = int(digits.size()) - 1;
        for (; up && position >= 0 && digits[size_t(position)] == '9'; --position)
            digits[size_t(position)] = '0';
        if (up && position >= 0)
            ++digits[size_t(position)];
        else if (up) { // carried out of the first digit (or nothing was kept)
            digits.insert(digits.begin(), '1');
            ++exponent;
        }
    }
    while (!digits.empty() && digits.back() == '0')
        digits.pop_back();
}

// Stream text of an exact value like printf %g (or %f when `fixed`), rounded as above.
template <class T> std::string stream_decimal(T r, int W, int I, int precision, bool fixed) {
    const bool negative = r < T(0);
    const magnitude_parts<T> parts(negative ? T(-r) : r, W - I);
    std::string integer = parts.integer != T(0) ? digits(parts.integer, 10, false) : "";
    std::string fraction = parts.fraction != T(0) ? decimal_fraction(parts.fraction, W - I) : "";
    std::string significant = integer + fraction;
    const size_t first = significant.find_first_not_of('0');
    int exponent = int(integer.size()) - 1 - (integer.empty() ? int(first) : 0);
    significant = first == std::string::npos ? "" : significant.substr(first);
    precision = precision > 0 ? precision : (fixed ? 0 : 1);
    round_decimal(significant, exponent, fixed ? exponent + 1 + precision : precision);
    const std::string sign = negative && !significant.empty() ? "-" : "";
    if (significant.empty())
        significant = "0", exponent = 0;
    if (!fixed && (exponent < -4 || exponent >= precision)) {
        const std::string power = std::to_string(exponent < 0 ? -exponent : exponent);
        return sign + significant[0] + (significant.size() > 1 ? "." + significant.substr(1) : "") +
               (exponent < 0 ? "e-" : "e+") + (power.size() < 2 ? "0" : "") + power;
    }
    std::string whole = "0", decimals = std::string(size_t(exponent < 0 ? -exponent - 1 : 0), '0') + significant;
    if (exponent >= 0) {
        significant.resize(significant.size() > size_t(exponent + 1) ? significant.size() : size_t(exponent + 1), '0');
        whole = significant.substr(0, size_t(exponent + 1));
        decimals = significant.substr(size_t(exponent + 1));
    }
    if (fixed)
        decimals.resize(size_t(precision), '0');
    return sign + whole + (decimals.empty() ? "" : "." + decimals);
}

// Work integer able to hold every intermediate of the routines above for a <W, I> value.
template <int W, int I> using format_int = work_int<max_of(max_of(W, I), W - I) + 8>;

} // namespace hls4ml_fixed

#endif
