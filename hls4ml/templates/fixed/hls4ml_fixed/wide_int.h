// Multi-word signed two's complement integer, used as raw storage only when a value needs more
// than 128 bits (wide accumulators, products and quotients of wide operands). Narrower values use
// native integers, so nothing here is on the hot path of typical 8..32-bit kernels.
#ifndef HLS4ML_FIXED_WIDE_INT_H
#define HLS4ML_FIXED_WIDE_INT_H

#include <cstddef>
#include <cstdint>

namespace hls4ml_fixed {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

// N 64-bit limbs, least significant first. Arithmetic wraps modulo 2^(64 N) like a native int
// would; callers size N so that the exact results they need always fit.
template <int N> class wide_int {
    static_assert(N >= 1, "wide_int needs at least one limb");

  public:
    uint64_t limb[size_t(N)];

    wide_int() : limb{} {}
    wide_int(int value) { assign_signed(value); }
    wide_int(long value) { assign_signed(value); }
    wide_int(long long value) { assign_signed(value); }
    wide_int(int128 value) {
        limb[0] = uint64_t(value);
        if (N > 1)
            limb[1 % N] = uint64_t(uint128(value) >> 64);
        fill_from(N > 1 ? 2 : 1, value < 0);
    }
    template <int M> explicit wide_int(const wide_int<M> &other) {
        for (int k = 0; k < N; ++k)
            limb[k] = k < M ? other.limb[k] : (other.is_negative() ? ~uint64_t(0) : 0);
    }

    bool is_negative() const { return int64_t(limb[N - 1]) < 0; }
    int128 low_int128() const { return int128((N > 1 ? uint128(limb[1 % N]) << 64 : 0) | limb[0]); }

    // Number of significant bits of a non-negative value (0 for zero).
    int bit_length() const {
        for (int k = N - 1; k >= 0; --k)
            if (limb[k])
                return 64 * k + 64 - __builtin_clzll(limb[k]);
        return 0;
    }

    // this /= divisor for a non-negative value; returns the remainder (limb-wise, for printing).
    uint32_t divide_small(uint32_t divisor) {
        uint64_t remainder = 0;
        for (int k = N - 1; k >= 0; --k) {
            uint128 current = (uint128(remainder) << 64) | limb[k];
            limb[k] = uint64_t(current / divisor);
            remainder = uint64_t(current % divisor);
        }
        return uint32_t(remainder);
    }

    wide_int operator~() const {
        wide_int r;
        for (int k = 0; k < N; ++k)
            r.limb[k] = ~limb[k];
        return r;
    }
    wide_int operator-() const { return ~*this + wide_int(1); }

    friend wide_int operator+(const wide_int &a, const wide_int &b) {
        wide_int r;
        uint64_t carry = 0;
        for (int k = 0; k < N; ++k) {
            uint128 sum = uint128(a.limb[k]) + b.limb[k] + carry;
            r.limb[k] = uint64_t(sum);
            carry = uint64_t(sum >> 64);
        }
        return r;
    }
    friend wide_int operator-(const wide_int &a, const wide_int &b) { return a + -b; }

    // Schoolbook product truncated to N limbs: correct for signed operands modulo 2^(64 N).
    friend wide_int operator*(const wide_int &a, const wide_int &b) {
        wide_int r;
        for (int i = 0; i < N; ++i) {
            uint64_t carry = 0;
            for (int j = 0; i + j < N; ++j) {
                uint128 t = uint128(a.limb[i]) * b.limb[j] + r.limb[i + j] + carry;
                r.limb[i + j] = uint64_t(t);
                carry = uint64_t(t >> 64);
            }
        }
        return r;
    }

    // Truncating division and C remainder (sign of the dividend), like native integers.
    friend wide_int operator/(const wide_int &a, const wide_int &b) {
        wide_int quotient, remainder;
        divide_magnitudes(a.magnitude(), b.magnitude(), quotient, remainder);
        return a.is_negative() != b.is_negative() ? -quotient : quotient;
    }
    friend wide_int operator%(const wide_int &a, const wide_int &b) {
        wide_int quotient, remainder;
        divide_magnitudes(a.magnitude(), b.magnitude(), quotient, remainder);
        return a.is_negative() ? -remainder : remainder;
    }

    friend wide_int operator&(wide_int a, const wide_int &b) {
        for (int k = 0; k < N; ++k)
            a.limb[k] &= b.limb[k];
        return a;
    }
    friend wide_int operator|(wide_int a, const wide_int &b) {
        for (int k = 0; k < N; ++k)
            a.limb[k] |= b.limb[k];
        return a;
    }
    friend wide_int operator^(wide_int a, const wide_int &b) {
        for (int k = 0; k < N; ++k)
            a.limb[k] ^= b.limb[k];
        return a;
    }

    // Shifts take 0 <= count < 64 N; >> is arithmetic (floor division by 2^count).
    wide_int operator<<(int count) const {
        wide_int r;
        const int words = count / 64, bits = count % 64;
        for (int k = N - 1; k >= words; --k) {
            uint64_t below = (bits && k - words - 1 >= 0) ? limb[k - words - 1] >> (64 - bits) : 0;
            r.limb[k] = (limb[k - words] << bits) | below;
        }
        return r;
    }
    wide_int operator>>(int count) const {
        wide_int r;
        const int words = count / 64, bits = count % 64;
        const uint64_t fill = is_negative() ? ~uint64_t(0) : 0;
        for (int k = 0; k < N; ++k) {
            uint64_t low = k + words < N ? limb[k + words] : fill;
            uint64_t high = k + words + 1 < N ? limb[k + words + 1] : fill;
            r.limb[k] = bits ? (low >> bits) | (high << (64 - bits)) : low;
        }
        return r;
    }

    friend bool operator==(const wide_int &a, const wide_int &b) {
        for (int k = 0; k < N; ++k)
            if (a.limb[k] != b.limb[k])
                return false;
        return true;
    }
    friend bool operator!=(const wide_int &a, const wide_int &b) { return !(a == b); }
    friend bool operator<(const wide_int &a, const wide_int &b) {
        if (a.is_negative() != b.is_negative())
            return a.is_negative();
        return unsigned_less(a, b);
    }
    friend bool operator>(const wide_int &a, const wide_int &b) { return b < a; }
    friend bool operator<=(const wide_int &a, const wide_int &b) { return !(b < a); }
    friend bool operator>=(const wide_int &a, const wide_int &b) { return !(a < b); }

  private:
    void assign_signed(long long value) {
        limb[0] = uint64_t(value);
        fill_from(1, value < 0);
    }
    void fill_from(int first, bool negative) {
        for (int k = first; k < N; ++k)
            limb[k] = negative ? ~uint64_t(0) : 0;
    }
    // |x| as an unsigned pattern; the most negative value maps to 2^(64N-1), still exact unsigned.
    wide_int magnitude() const { return is_negative() ? -*this : *this; }

    static bool unsigned_less(const wide_int &a, const wide_int &b) {
        for (int k = N - 1; k >= 0; --k)
            if (a.limb[k] != b.limb[k])
                return a.limb[k] < b.limb[k];
        return false;
    }
    // Restoring long division on unsigned patterns, one bit per step: simple and exact; only
    // wide divisions (rare, never in inner loops) come here.
    static void divide_magnitudes(const wide_int &a, const wide_int &b, wide_int &quotient, wide_int &remainder) {
        quotient = wide_int();
        remainder = wide_int();
        for (int bit = 64 * N - 1; bit >= 0; --bit) {
            remainder = remainder << 1;
            remainder.limb[0] |= (a.limb[bit / 64] >> (bit % 64)) & 1;
            if (!unsigned_less(remainder, b)) {
                remainder = remainder + -b;
                quotient.limb[bit / 64] |= uint64_t(1) << (bit % 64);
            }
        }
    }
};

} // namespace hls4ml_fixed

#endif
