// Exercises the whole API subset of hls4ml/templates/fixed for both faces and checks hand-computed
// values from the worked examples of shared/specs/fixed-point.md. Compiled by test_api_compile.py
// with -Wall -Wextra -Werror; prints one line per failed check and "checks passed: N" at the end.
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "ac_fixed.h"
#include "ap_fixed.h"

static int checks = 0, failures = 0;

#define CHECK(...)                                                                                               \
    do {                                                                                                               \
        ++checks;                                                                                                      \
        if (!(__VA_ARGS__)) {                                                                                            \
            ++failures;                                                                                                \
            std::printf("FAIL line %d: %s\n", __LINE__, #__VA_ARGS__);                                                   \
        }                                                                                                              \
    } while (0)
// Variadic so that template arguments with commas need no extra parentheses.
template <class A, class B> void check_equal(int line, const A &actual, const B &expected) {
    ++checks;
    if (!(actual == expected)) {
        ++failures;
        std::printf("FAIL line %d (equality)\n", line);
    }
}
#define CHECK_EQ(...) check_equal(__LINE__, __VA_ARGS__)

template <class T> long long raw_of(const T &value) {
    long long raw = 0;
    for (int i = 0; i < T::width; ++i)
        raw |= (long long)(value[i] ? 1 : 0) << i;
    if (value[T::width - 1] && T::width < 64 && value.is_neg())
        raw -= 1LL << T::width;
    return raw;
}

template <class T> std::string streamed(const T &value) {
    std::ostringstream stream;
    stream << value;
    return stream.str();
}

// Spec 3.1 worked example: y = 16 x, result z per quantization mode.
static const double inputs_y[] = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -1.25, 1.75, -1.75};
template <ap_q_mode Q> void check_ap_row(const int (&expected)[9]) {
    for (int k = 0; k < 9; ++k)
        CHECK_EQ(raw_of(ap_fixed<8, 4, Q>(inputs_y[k] / 16)), expected[k]);
}
template <ac_q_mode Q> void check_ac_row(const int (&expected)[9]) {
    for (int k = 0; k < 9; ++k)
        CHECK_EQ(raw_of(ac_fixed<8, 4, true, Q>(inputs_y[k] / 16)), expected[k]);
}

void quantization_table() {
    check_ap_row<AP_TRN>({0, -1, 1, -2, 2, -3, -2, 1, -2});
    check_ap_row<AP_TRN_ZERO>({0, 0, 1, -1, 2, -2, -1, 1, -1});
    check_ap_row<AP_RND>({1, 0, 2, -1, 3, -2, -1, 2, -2});
    check_ap_row<AP_RND_ZERO>({0, 0, 1, -1, 2, -2, -1, 2, -2});
    check_ap_row<AP_RND_MIN_INF>({0, -1, 1, -2, 2, -3, -1, 2, -2});
    check_ap_row<AP_RND_INF>({1, -1, 2, -2, 3, -3, -1, 2, -2});
    check_ap_row<AP_RND_CONV>({0, 0, 2, -2, 2, -2, -1, 2, -2});
    check_ac_row<AC_RND_CONV>({0, 0, 2, -2, 2, -2, -1, 2, -2});
    check_ac_row<AC_RND_CONV_ODD>({1, -1, 1, -1, 3, -3, -1, 2, -2});
    check_ac_row<AC_TRN_ZERO>({0, 0, 1, -1, 2, -2, -1, 1, -1});
}

// Spec 3.2 worked example, ap_fixed<8,4,Q,O,N>.
template <ap_q_mode Q> void check_overflow_row(double x, const int (&expected)[10]) {
    const int got[10] = {int(raw_of(ap_fixed<8, 4, Q, AP_SAT>(x))),        int(raw_of(ap_fixed<8, 4, Q, AP_SAT_ZERO>(x))),
                         int(raw_of(ap_fixed<8, 4, Q, AP_SAT_SYM>(x))),    int(raw_of(ap_fixed<8, 4, Q, AP_WRAP>(x))),
                         int(raw_of(ap_fixed<8, 4, Q, AP_WRAP, 1>(x))),    int(raw_of(ap_fixed<8, 4, Q, AP_WRAP, 2>(x))),
                         int(raw_of(ap_fixed<8, 4, Q, AP_WRAP, 3>(x))),    int(raw_of(ap_fixed<8, 4, Q, AP_WRAP_SM>(x))),
                         int(raw_of(ap_fixed<8, 4, Q, AP_WRAP_SM, 2>(x)))};
    for (int k = 0; k < 9; ++k)
        CHECK_EQ(got[k], expected[k]);
}

void overflow_table() {
    check_overflow_row<AP_TRN>(7.96875, {127, 127, 127, 127, 127, 127, 127, 127, 127});
    check_overflow_row<AP_RND>(7.96875, {127, 0, 127, -128, 0, 64, 96, 127, 127});
    check_overflow_row<AP_TRN>(8.0, {127, 0, 127, -128, 0, 64, 96, 127, 127});
    check_overflow_row<AP_TRN>(-8.0, {-128, -128, -127, -128, -128, -128, -128, -128, -128});
    check_overflow_row<AP_TRN>(-8.015625, {-128, 0, -127, 127, -1, -65, -97, -128, -128});
    check_overflow_row<AP_RND>(-8.015625, {-128, -128, -127, -128, -128, -128, -128, -128, -128});
    check_overflow_row<AP_TRN>(16.15625, {127, 0, 127, 2, 2, 66, 98, -3, 125});
    check_overflow_row<AP_RND>(16.15625, {127, 0, 127, 3, 3, 67, 99, -4, 124});
    CHECK_EQ(raw_of(ac_fixed<8, 4, true, AC_TRN, AC_SAT_SYM>(-8.0)), -127);
    CHECK_EQ((ap_ufixed<8, 4, AP_TRN, AP_WRAP, 2>(-1.0).to_double()), 15.0); // top bits set to 1
    CHECK_EQ((ap_ufixed<8, 4, AP_TRN, AP_SAT>(-1.0).to_double()), 0.0);
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_EQ((ap_fixed<8, 4, AP_TRN, AP_SAT>(inf).to_double()), 7.9375);
    CHECK_EQ((ap_fixed<8, 4, AP_TRN, AP_SAT>(-inf).to_double()), -8.0);
    CHECK_EQ((ap_fixed<8, 4, AP_TRN, AP_SAT>(nan).to_double()), 7.9375);
    CHECK_EQ((ap_fixed<8, 4>(inf).to_double()), 0.0);
    CHECK_EQ((ac_fixed<8, 4, true, AC_TRN, AC_SAT>(nan).to_double()), 7.9375);
    CHECK_EQ((ap_fixed<4, 6>(13).to_double()), 12.0);
    CHECK_EQ((ap_fixed<4, 6, AP_RND>(14).to_double()), 16.0);
    CHECK_EQ(raw_of(ap_fixed<8, -3>(0.03)), 0x3D);
}

void ap_fixed_api() {
    // construction from every source kind
    ap_fixed<8, 4> a = -1.25;
    ap_ufixed<6, 2> b = 1.5;
    ap_fixed_base<8, 4, true, AP_TRN, AP_WRAP, 0> base = a;
    ap_fixed<8, 4> from_base = base;
    ap_fixed<16, 8> from_fixed(a), from_ufixed = b, from_int = ap_int<5>(-3), from_uint = ap_uint<5>(7);
    ap_fixed<16, 8> from_bool = true, from_char = 'A', from_schar = (signed char)-2, from_uchar = (unsigned char)200;
    ap_fixed<16, 8> from_short = (short)-100, from_ushort = (unsigned short)100, from_int_c = -7, from_unsigned = 7u;
    ap_fixed<16, 8> from_long = -5L, from_ulong = 5UL, from_llong = -9LL, from_ullong = 9ULL;
    ap_fixed<16, 8> from_float = 0.75f, from_double = -0.375, from_text("1.75"), from_hex("-0x1.8"), from_bin("0b10.01");
    CHECK_EQ(from_base.to_double(), -1.25);
    CHECK_EQ(from_fixed.to_double(), -1.25);
    CHECK_EQ(from_ufixed.to_double(), 1.5);
    CHECK_EQ(from_int.to_double() + from_uint.to_double(), 4.0);
    CHECK_EQ(from_bool.to_double() + from_char.to_double(), 66.0);
    CHECK_EQ(from_schar.to_double() + from_uchar.to_double(), -58.0);
    CHECK_EQ(from_short.to_double() + from_ushort.to_double() + from_int_c.to_double() + from_unsigned.to_double(), 0.0);
    CHECK_EQ(from_long.to_double() + from_ulong.to_double() + from_llong.to_double() + from_ullong.to_double(), 0.0);
    CHECK_EQ(from_float.to_double() + from_double.to_double(), 0.375);
    CHECK_EQ(from_text.to_double() + from_hex.to_double() + from_bin.to_double(), 2.5);
    CHECK_EQ((ap_fixed<8, 4, AP_RND>("0.03125").to_double()), 0.0625);
    CHECK_EQ((ap_fixed<8, 4>("0.03125").to_double()), 0.0);
    CHECK_EQ((ap_fixed<8, 4, AP_RND>("-0.03125").to_double()), 0.0);
    CHECK_EQ((ap_fixed<8, 4, AP_RND, AP_SAT>("100").to_double()), 7.9375);
    CHECK_EQ((ap_fixed<8, 4>("100").to_double()), 4.0);
    ap_fixed<16, 8> assigned;
    CHECK_EQ(assigned.to_double(), 0.0); // default construction is zero
    assigned = 2;
    assigned = a;
    assigned = 0.5f;
    CHECK_EQ(assigned.to_double(), 0.5);

    // conversions out
    CHECK_EQ(a.to_float(), -1.25f);
    CHECK_EQ(a.to_int(), -1);
    CHECK_EQ(ap_fixed<8, 4>(-2.5).to_int(), -2);
    CHECK_EQ(a.to_uint(), 0xffffffffu);
    CHECK_EQ(a.to_int64(), -1LL);
    CHECK_EQ(a.to_uint64(), ~0ULL);
    CHECK_EQ(a.to_long(), -1L);
    double as_double = a;
    float as_float = a;
    bool as_bool = a;
    char as_char = a;
    int as_int = a;
    unsigned as_unsigned = ap_fixed<8, 4>(3.5);
    long as_long = a;
    unsigned long as_ulong = ap_fixed<8, 4>(3.5);
    long long as_llong = a;
    unsigned long long as_ullong = ap_fixed<8, 4>(3.5);
    CHECK(as_double == -1.25 && as_float == -1.25f && as_bool && as_char == -1 && as_int == -1);
    CHECK(as_unsigned == 3u && as_long == -1 && as_ulong == 3ul && as_llong == -1 && as_ullong == 3ull);
    if (!a)
        CHECK(false);

    // result types (spec 6.1, 6.3)
    static_assert(std::is_same<decltype(a + b), ap_fixed<9, 5>>::value, "a+b");
    static_assert(std::is_same<decltype(a - b), ap_fixed<9, 5>>::value, "a-b");
    static_assert(std::is_same<decltype(b - b), ap_fixed<7, 3>>::value, "b-b");
    static_assert(std::is_same<decltype(b + b), ap_ufixed<7, 3>>::value, "b+b");
    static_assert(std::is_same<decltype(a * b), ap_fixed<14, 6>>::value, "a*b");
    static_assert(std::is_same<decltype(a / b), ap_fixed<12, 8>>::value, "a/b");
    static_assert(std::is_same<decltype(b / a), ap_fixed<11, 7>>::value, "b/a");
    static_assert(std::is_same<decltype(-b), ap_fixed<7, 3>>::value, "-b");
    static_assert(std::is_same<decltype(a + 1), ap_fixed<37, 33>>::value, "a+int");
    static_assert(std::is_same<decltype(a * 1LL), ap_fixed<72, 68>>::value, "a*long long");
    static_assert(std::is_same<decltype(a + 1u), ap_fixed<38, 34>>::value, "a+unsigned");
    static_assert(std::is_same<decltype(a / 2), ap_fixed<9, 5>>::value, "a/int");
    static_assert(std::is_same<decltype(a & b), ap_fixed<8, 4>>::value, "a&b");
    static_assert(std::is_same<decltype(~a), ap_fixed<8, 4>>::value, "~a");
    static_assert(std::is_same<decltype(a << 1), ap_fixed<8, 4>>::value, "a<<1");
    CHECK_EQ((ap_fixed<8, 4>(1) / ap_fixed<8, 4>(3)).to_double(), 0.3125);
    CHECK_EQ((ap_fixed<8, 4>(-1) / ap_fixed<8, 4>(3)).to_double(), -0.3125);
    CHECK_EQ((a * b).to_double(), -1.875);
    CHECK_EQ((a + b).to_double(), 0.25);
    CHECK_EQ((1 - a).to_double(), 2.25);
    CHECK_EQ((a | b).to_double(), -0.25);
    CHECK_EQ((a ^ b).to_double(), -0.75);
    CHECK_EQ((-a).to_double(), 1.25);
    CHECK_EQ((+a).to_double(), -1.25);
    CHECK_EQ((~a).to_double(), 1.1875);

    // comparisons with fixed, C integers and doubles
    CHECK(a < b && b > a && a <= a && a >= a && a == -1.25 && a != b && a < 0 && 0 > a && -2 < a && a > -1.5);
    CHECK(1.25 > a && a != 3u);
    ap_fixed<70, 68> big = 9007199254740992.0; // 2^53
    big += ap_fixed<4, 0>(0.25);
    CHECK(big == big.to_double()); // ap compares via to_double()

    // compound assignment and increments (spec 3.4, 6.5)
    ap_fixed<8, 4, AP_RND, AP_SAT> saturating = 7.5;
    saturating += 1;
    CHECK_EQ(saturating.to_double(), 7.9375);
    ap_fixed<8, 4> wrapping = 7.5;
    wrapping += 1;
    CHECK_EQ(wrapping.to_double(), -7.5);
    ap_fixed<16, 8> c = 1.5;
    c -= a;
    c *= b;
    c /= 2;
    CHECK_EQ(c.to_double(), 2.0625);
    c &= ap_fixed<16, 8>(3.0);
    c |= ap_fixed<16, 8>(0.5);
    c ^= 1;
    CHECK_EQ(c.to_double(), 3.5);
    c <<= 1;
    c >>= 2;
    CHECK_EQ(c.to_double(), 1.75);
    ap_fixed<8, 4> inc = 1.25;
    CHECK_EQ((inc++).to_double(), 1.25);
    CHECK_EQ(inc.to_double(), 2.25);
    CHECK_EQ((++inc).to_double(), 3.25);
    CHECK_EQ((inc--).to_double(), 3.25);
    CHECK_EQ((--inc).to_double(), 1.25);
    ap_fixed<8, -2> tiny = 0.0625;
    tiny++;
    CHECK_EQ(tiny.to_double(), 0.0625);

    // shifts (spec 7)
    ap_fixed<8, 4, AP_TRN, AP_SAT> shifted = 1.5;
    shifted <<= 3;
    CHECK_EQ(shifted.to_double(), -4.0);
    CHECK_EQ((a << 1).to_double(), -2.5);
    CHECK_EQ((a >> 1u).to_double(), -0.625);
    CHECK_EQ((a << -1).to_double(), -0.625);
    CHECK_EQ((a >> ap_int<4>(2)).to_double(), -0.3125);
    CHECK_EQ((a << ap_uint<4>(9)).to_double(), 0.0);
    CHECK_EQ((a >> 20).to_double(), -0.0625);

    // bits (spec 9.1)
    CHECK(a[7] && !a[0] && a.get_bit(3) && !a.get_bit(-4));
    CHECK_EQ((unsigned long long)a.range(7, 4), 14ull);
    CHECK_EQ(a.range(3, 0).to_uint(), 12u);
    CHECK_EQ((unsigned long long)a.range(), 236ull);
    CHECK_EQ((unsigned long long)a(7, 4), 14ull);
    ap_uint<4> high_nibble = a.range(7, 4);
    ap_uint<8> all_bits = a.range();
    CHECK(high_nibble == 14 && all_bits == 236);
    int from_range = a.range(3, 0);
    CHECK_EQ(from_range, 12);
    ap_fixed<8, 4> bits = 0;
    bits[7] = 1;
    bits[0] = true;
    bits[1] = bits[0];
    CHECK_EQ(raw_of(bits), -125);
    bits.range(3, 0) = 5;
    CHECK_EQ(raw_of(bits), -123);
    bits(7, 4) = ap_uint<4>(1);
    bits.set_bit(-4, false);
    CHECK_EQ(raw_of(bits), 0x14);
    CHECK(!bits.is_neg() && a.is_neg());

    // type information
    CHECK(a.length() == 8 && a.wl() == 8 && a.iwl() == 4 && a.q_mode() == AP_TRN && a.o_mode() == AP_WRAP);
    CHECK(a.n_bits() == 0 && ap_fixed<8, 4>::width == 8 && ap_fixed<8, 4>::iwidth == 4);
    CHECK((ap_fixed<8, 4, AP_RND, AP_SAT>::qmode == AP_RND && ap_fixed<8, 4, AP_RND, AP_SAT>::omode == AP_SAT));

    // strings and streams (spec 9.2)
    CHECK_EQ(a.to_string(), "0b11110.1100");
    CHECK_EQ(ap_fixed<8, 4>(2.5).to_string(2), "0b010.1000");
    CHECK_EQ(ap_fixed<8, 4>(0).to_string(2), "0b0");
    CHECK_EQ((ap_fixed<2, 0>(-0.5).to_string(2)), "0b0.10");
    CHECK_EQ(a.to_string(10), "-1.25");
    CHECK_EQ(ap_fixed<8, 4>(0.0625).to_string(10), "0.0625");
    CHECK_EQ(a.to_string(16), "-0x1.4p0");
    CHECK_EQ(a.to_string(16, false), "0x1e.cp0");
    CHECK_EQ(a.to_string(AP_HEX), "-0x1.4p0");
    CHECK_EQ(streamed(ap_fixed<16, 8>(3.14159)), "3.14063");
    CHECK_EQ(streamed(ap_fixed<32, 24>(1234567.5)), "1.23457e+06");
    CHECK_EQ(streamed(ap_fixed<16, 2>(-0.0001)), "-0.00012207");
    CHECK_EQ(streamed(ap_fixed<24, 2>(-0.00001)), "-1.00136e-05");
    std::ostringstream stream;
    stream.precision(3);
    stream << ap_fixed<16, 8>(3.14159) << ' ' << std::fixed << ap_fixed<16, 8>(-2.5) << ' ' << ap_fixed<8, 4>(0);
    CHECK_EQ(stream.str(), "3.14 -2.500 0.000");
    const ap_fixed<8, 4> constant = -1.25;
    CHECK((constant.range(7, 4) == 14 && constant(3, 0) == 12 && constant.range() == 236 && constant[2]));
}

void ap_int_api() {
    ap_int<8> a = 300;
    CHECK_EQ(a.to_int(), 44);
    ap_int<8> from_wide = ap_int<16>(300), from_double = -2.5, from_double2 = 2.7, from_fixed = ap_fixed<8, 4>(-2.5);
    CHECK(from_wide == 44 && from_double == -2 && from_double2 == 2 && from_fixed == -2);
    ap_uint<8> u = 200;
    ap_uint<8> from_bool = true, from_char = 'a', from_long = 5L, from_ull = 0x1ffULL, from_text = "0x1f";
    CHECK(from_bool + from_char == 98 && from_long == 5 && from_ull == 255 && from_text == 31);

    // result types (spec 4)
    static_assert(std::is_same<decltype(a + u), ap_int<10>>::value, "+");
    static_assert(std::is_same<decltype(a - a), ap_int<9>>::value, "-");
    static_assert(std::is_same<decltype(u - u), ap_int<9>>::value, "- unsigned");
    static_assert(std::is_same<decltype(a * u), ap_int<16>>::value, "*");
    static_assert(std::is_same<decltype(u * u), ap_uint<16>>::value, "* unsigned");
    static_assert(std::is_same<decltype(a / u), ap_int<8>>::value, "/");
    static_assert(std::is_same<decltype(u / a), ap_int<9>>::value, "/ signed divisor");
    static_assert(std::is_same<decltype(a % u), ap_int<8>>::value, "%");
    static_assert(std::is_same<decltype(u % a), ap_uint<8>>::value, "% unsigned");
    static_assert(std::is_same<decltype(a & u), ap_int<9>>::value, "&");
    static_assert(std::is_same<decltype(-ap_int<1>(0)), ap_int<3>>::value, "-ap_int<1>");
    static_assert(std::is_same<decltype(-ap_uint<1>(0)), ap_int<2>>::value, "-ap_uint<1>");
    static_assert(std::is_same<decltype(~u), ap_uint<8>>::value, "~");
    static_assert(std::is_same<decltype(a + 1), ap_int<33>>::value, "+int");
    static_assert(std::is_same<decltype(a * ap_fixed<8, 4>(1)), ap_fixed<16, 12>>::value, "int*fixed");
    CHECK_EQ((a + u).to_int(), 244);
    CHECK_EQ((a - u).to_int(), -156);
    CHECK_EQ((a * u).to_int(), 8800);
    CHECK_EQ((ap_int<8>(-7) / ap_int<8>(2)).to_int(), -3);
    CHECK_EQ((ap_int<8>(-7) % ap_int<8>(3)).to_int(), -1);
    CHECK_EQ((u & 0x0f).to_int(), 8);
    CHECK_EQ((u | 1).to_int(), 201);
    CHECK_EQ((u ^ 0xff).to_int(), 55);
    CHECK_EQ((~u).to_int(), 55);
    CHECK_EQ((u << 1).to_int(), 144);
    CHECK_EQ((u >> 3).to_int(), 25);
    CHECK(a < u && u > 100 && a != u && a == 44 && 44 == a && a <= 44 && a >= 44);

    // compound, increments, implicit conversion to long long (array index)
    ap_uint<8> counter = 254;
    counter++;
    ++counter;
    CHECK_EQ(counter.to_int(), 0);
    counter--;
    CHECK_EQ(counter.to_int(), 255);
    counter += 3;
    counter -= 1;
    counter *= 3;
    counter /= 2;
    counter %= 5;
    counter &= 7;
    counter |= 8;
    counter ^= 1;
    counter <<= 2;
    counter >>= 1;
    CHECK_EQ(counter.to_int(), 16);
    const int table[4] = {10, 20, 30, 40};
    ap_uint<2> index = 3;
    CHECK_EQ(table[index], 40);
    long long as_llong = a;
    unsigned long long as_ullong = u;
    CHECK(as_llong == 44 && as_ullong == 200);
    for (ap_uint<4> i = 0; i < 10; i++)
        CHECK(i < 10);

    // bits, concatenation, reductions
    ap_uint<8> bits = 0;
    bits[3] = 1;
    bits.range(7, 6) = 3;
    CHECK_EQ(bits.to_int(), 0xc8);
    CHECK_EQ(bits(7, 4).to_int(), 0xc);
    CHECK_EQ(bits.range(3, 3).to_int(), 1);
    const ap_uint<12> joined = (ap_uint<4>(0xa), ap_uint<8>(0x5b));
    CHECK_EQ(joined.to_int(), 0xa5b);
    CHECK_EQ(ap_uint<4>(0xa).concat(ap_int<4>(-1)).to_int(), 0xaf);
    CHECK(ap_uint<4>(15).and_reduce() && !ap_uint<4>(14).and_reduce() && ap_uint<4>(2).or_reduce());
    CHECK(ap_uint<4>(7).xor_reduce() && !ap_uint<4>(3).xor_reduce() && ap_int<4>(-1).and_reduce());
    CHECK(ap_uint<4>(0).nor_reduce() && ap_uint<4>(3).nand_reduce() && ap_uint<4>(3).xnor_reduce());
    CHECK_EQ(ap_uint<8>(5).countLeadingZeros(), 5);
    CHECK_EQ(ap_int<8>(-1).countLeadingZeros(), 0);

    // conversions and text
    CHECK(a.to_uint() == 44u && a.to_int64() == 44 && a.to_uint64() == 44u && a.to_long() == 44 && a.to_double() == 44.0);
    CHECK_EQ(ap_int<8>(-5).to_string(), "0b11111011");
    CHECK_EQ(ap_int<8>(-5).to_string(10), "-5");
    CHECK_EQ(ap_int<8>(-5).to_string(16), "-0x5");
    CHECK_EQ(ap_int<8>(-5).to_string(16, false), "0xfb");
    CHECK_EQ(streamed(ap_int<8>(-5)), "-5");
    CHECK(a.length() == 8 && ap_uint<12>::width == 12);

    // wide integers (multi-word storage)
    ap_uint<200> wide = 1;
    wide <<= 150;
    wide += 12345;
    const ap_uint<200> quotient = wide / ap_uint<200>(3);
    CHECK_EQ((quotient * 3 + wide % 3 == wide), true);
    CHECK_EQ(wide.range(149, 0).to_int(), 12345);
    CHECK_EQ(wide.countLeadingZeros(), 49);
    CHECK_EQ(ap_int<130>(-3).to_string(10), "-3");
}

void ac_fixed_api() {
    ac_fixed<8, 4, true> x = -1.25;
    ac_fixed<8, 4, false> unsigned_x = 2.5;
    ac_fixed<16, 8, true> from_fixed = x, from_int = ac_int<5, true>(-3), from_c = 7, from_bool = true;
    ac_fixed<16, 8, true> from_double = -0.375, from_float = 0.75f, from_uchar = (unsigned char)9, from_ull = 5ULL;
    CHECK_EQ(from_fixed.to_double() + from_int.to_double() + from_c.to_double() + from_bool.to_double(), 3.75);
    CHECK_EQ(from_double.to_double() + from_float.to_double() + from_uchar.to_double() + from_ull.to_double(), 14.375);
    ac_fixed<16, 8, true> assigned;
    CHECK_EQ(assigned.to_double(), 0.0);
    assigned = x;
    assigned = 3;
    assigned = 0.25;
    CHECK_EQ(assigned.to_double(), 0.25);

    // conversions out: floor
    CHECK_EQ(x.to_int(), -2);
    CHECK_EQ(ac_fixed<8, 4, true>(-2.5).to_int(), -3);
    CHECK(x.to_uint() == 0xfffffffeu && x.to_long() == -2 && x.to_ulong() == (unsigned long)-2L);
    CHECK(x.to_int64() == -2 && x.to_uint64() == (unsigned long long)-2LL && x.to_double() == -1.25);
    static_assert(std::is_same<decltype(x.to_ac_int()), ac_int<4, true>>::value, "to_ac_int");
    static_assert(std::is_same<decltype(ac_fixed<8, -2, false>().to_ac_int()), ac_int<1, false>>::value, "I<1");
    CHECK_EQ(x.to_ac_int().to_int(), -2);

    // arithmetic, ~ and increments (spec 6.1, 6.5)
    static_assert(std::is_same<decltype(x + unsigned_x), ac_fixed<10, 6, true>>::value, "+");
    static_assert(std::is_same<decltype(x * x), ac_fixed<16, 8, true>>::value, "*");
    static_assert(std::is_same<decltype(x / 2), ac_fixed<9, 5, true>>::value, "/int");
    static_assert(std::is_same<decltype(~unsigned_x), ac_fixed<9, 5, true>>::value, "~ unsigned");
    static_assert(std::is_same<decltype(~x), ac_fixed<8, 4, true>>::value, "~ signed");
    static_assert(std::is_same<decltype(-ac_int<1, true>(0)), ac_int<2, true>>::value, "-ac_int<1>");
    CHECK_EQ((~x).to_double(), 1.1875);
    CHECK_EQ((~unsigned_x).to_double(), -2.5625);
    CHECK_EQ(x.bit_complement().to_double(), 1.1875);
    CHECK_EQ((x * unsigned_x - 1).to_double(), -4.125);
    CHECK_EQ((100 / ac_fixed<8, 4, true>(0.0625)).to_double(), 1600.0);
    ac_fixed<8, 4, true> step = 1.25;
    step++;
    CHECK_EQ(step.to_double(), 1.3125);
    --step;
    step--;
    ++step;
    CHECK_EQ(step.to_double(), 1.25);
    ac_fixed<4, 6, true> coarse = 8;
    coarse++;
    CHECK_EQ(coarse.to_double(), 12.0);
    ac_fixed<8, 4, true, AC_RND, AC_SAT> sat = 7.5;
    sat += 1;
    sat *= 2;
    CHECK_EQ(sat.to_double(), 7.9375);

    // comparisons: exact against doubles
    ac_fixed<70, 68, true> big = 9007199254740992.0;
    big += ac_fixed<4, 0, true>(0.25);
    CHECK(big != big.to_double() && big > 9007199254740992.0);
    CHECK(x < unsigned_x && x == -1.25 && x < 0 && -2 < x && x != 1);

    // bits and slices (spec 9.1)
    CHECK_EQ(x.slc<4>(4).to_int(), -2);
    CHECK_EQ(unsigned_x.slc<4>(4).to_int(), 2);
    ac_fixed<8, 4, true> bits = 0;
    bits.set_slc(4, ac_int<4, false>(0xa));
    bits[0] = 1;
    CHECK(bits[7] && bits[0] && !bits[1]);
    CHECK_EQ(bits.to_double(), -5.9375);
    CHECK_EQ(ac_fixed<8, 4, true>(0.5).leading_sign(), 3);
    CHECK_EQ(ac_fixed<8, 4, false>(0.5).leading_sign(), 4);
    CHECK(ac_fixed<4, 4, true>(-1).and_reduce() && ac_fixed<4, 2, true>(0.25).or_reduce());
    CHECK(ac_fixed<4, 4, true>(1).xor_reduce());

    // special values and statics
    ac_fixed<8, 4, true, AC_TRN, AC_SAT_SYM> symmetric;
    CHECK_EQ(symmetric.set_val<AC_VAL_MIN>().to_double(), -7.9375);
    CHECK_EQ(bits.set_val<AC_VAL_MAX>().to_double(), 7.9375);
    CHECK_EQ(bits.set_val<AC_VAL_MIN>().to_double(), -8.0);
    CHECK_EQ(bits.set_val<AC_VAL_QUANTUM>().to_double(), 0.0625);
    CHECK_EQ(bits.set_val<AC_VAL_0>().to_double(), 0.0);
    typedef ac_fixed<8, 4, false, AC_RND, AC_SAT> modes_t;
    CHECK(modes_t::width == 8 && modes_t::i_width == 4 && !modes_t::sign && modes_t::e_width == 0);
    CHECK(modes_t::q_mode == AC_RND && modes_t::o_mode == AC_SAT && x.length() == 8);

    // strings and streams (spec 9.2)
    CHECK_EQ(x.to_string(AC_DEC), "-1.25");
    CHECK_EQ((ac_fixed<8, 4, true>(0.5).to_string(AC_DEC)), ".5");
    CHECK_EQ((ac_fixed<8, 4, true>(-0.0625).to_string(AC_DEC)), "-.0625");
    CHECK_EQ(x.to_string(AC_BIN), "0b10.1100");
    CHECK_EQ(x.to_string(AC_OCT), "0o6.60");
    CHECK_EQ(x.to_string(AC_HEX), "0xE.C");
    CHECK_EQ(x.to_string(AC_HEX, true), "-0x1.4");
    CHECK_EQ((ac_fixed<8, 4, true>(0).to_string(AC_BIN)), "0b0.0000");
    CHECK_EQ(streamed(x), "-1.25");
}

void ac_int_api() {
    ac_int<8, true> a = 300;
    CHECK_EQ(a.to_int(), 44);
    ac_int<8, true> from_wide = ac_int<16, true>(300), from_double = -2.5;
    ac_int<8, false> from_negative = -0.3, from_bool = true, from_char = 'a';
    CHECK(from_wide == 44 && from_double == -3 && from_negative == 255 && from_bool + from_char == 98);
    static_assert(std::is_same<decltype(a + ac_int<8, false>(1)), ac_int<10, true>>::value, "+");
    static_assert(std::is_same<decltype(a % ac_int<4, false>(1)), ac_int<5, true>>::value, "%");
    static_assert(std::is_same<decltype(~ac_int<8, false>(1)), ac_int<9, true>>::value, "~ unsigned");
    static_assert(!std::is_convertible<ac_fixed<8, 4, true>, ac_int<8, true>>::value || true, "");
    CHECK_EQ((a * a).to_int(), 1936);
    CHECK_EQ((a / 5).to_int(), 8);
    CHECK_EQ((a % 5).to_int(), 4);
    CHECK_EQ((ac_int<8, false>(5) - 7).to_int(), -2);
    CHECK_EQ((~ac_int<8, false>(5)).to_int(), -6);
    CHECK_EQ(ac_int<8, false>(5).bit_complement().to_int(), 250);
    CHECK_EQ((a << 2).to_int(), -80);
    CHECK_EQ((a >> 2).to_int(), 11);
    CHECK_EQ((a & 12).to_int(), 12);
    CHECK_EQ((a | 3).to_int(), 47);
    CHECK_EQ((a ^ 4).to_int(), 40);
    a += 1;
    a -= 2;
    a *= 2;
    a /= 3;
    a %= 7;
    a &= 6;
    a |= 1;
    a ^= 2;
    a <<= 1;
    a >>= 1;
    a++;
    a--;
    ++a;
    --a;
    CHECK_EQ(a.to_int(), 3);
    long long as_llong = a;
    unsigned long long as_ullong = ac_int<8, false>(200);
    const int table[4] = {1, 2, 3, 4};
    CHECK(as_llong == 3 && as_ullong == 200 && table[ac_int<2, false>(2)] == 3);
    ac_int<8, false> bits = 0;
    bits.set_slc(4, ac_int<3, false>(5));
    bits[0] = 1;
    CHECK_EQ(bits.to_int(), 0x51);
    CHECK_EQ(bits.slc<4>(4).to_int(), 5);
    CHECK_EQ(ac_int<8, true>(-16).slc<4>(4).to_int(), -1);
    CHECK_EQ(ac_int<8, true>(3).leading_sign(), 5);
    CHECK(ac_int<3, false>(7).and_reduce() && ac_int<3, false>(1).or_reduce() && !ac_int<3, false>(3).xor_reduce());
    CHECK(bits.to_uint() == 0x51u && bits.to_int64() == 0x51 && bits.to_uint64() == 0x51u && bits.to_long() == 0x51);
    CHECK_EQ(ac_int<8, true>(-5).to_string(AC_DEC), "-5");
    CHECK_EQ(ac_int<8, true>(-5).to_string(AC_HEX), "0xB");
    CHECK_EQ(streamed(ac_int<8, true>(-5)), "-5");
    CHECK(ac_int<8, true>::width == 8 && ac_int<8, true>::i_width == 8 && ac_int<8, false>::sign == false);
    CHECK(a.length() == 8);
    ac_int<100, true> wide = -1;
    wide <<= 80;
    CHECK_EQ(wide.to_string(AC_DEC), "-1208925819614629174706176");
}

int main() {
    quantization_table();
    overflow_table();
    ap_fixed_api();
    ap_int_api();
    ac_fixed_api();
    ac_int_api();
    std::printf("checks passed: %d of %d\n", checks - failures, checks);
    return failures ? 1 : 0;
}
