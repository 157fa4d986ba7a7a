// Integer multiply-accumulate on the raw fixed-point values, for the C-simulation library only.
//
// The kernels' `acc += data * weight` is, on our own fixed-point headers, an exact integer product
// of the raw values, added at full precision and written back into accum_t (scale to the accum LSB,
// quantize, overflow). When the accumulator wraps (AP_WRAP / AC_WRAP without saturation bits) that
// write is a ring homomorphism modulo 2^W, and when it drops product bits with a rounding mode that
// looks only at the dropped bits (TRN, RND, RND_MIN_INF: not the sign, not the parity of the total),
// quantize(acc + p) = acc + quantize(p) because acc is already a multiple of the accum LSB. So the
// sum can run on plain machine integers and be wrapped once at the end, bit for bit the same as the
// typed loop (test/csim/nnet/test_csim_fast.py compares both on edge types). Any other combination
// (saturation, sign- or parity-dependent rounding, products wider than 64 bits, vendor headers) keeps
// the typed loop.
//
// Active only where the library that Python loads is built: HLS4ML_CSIM_FAST (a compiler flag of
// hls4ml/csim, never written into a project), our fixed-point headers, and no __SYNTHESIS__. The HLS
// tools and the vendor headers never see these functions.
#ifndef NNET_CSIM_FAST_H_
#define NNET_CSIM_FAST_H_

#if defined(HLS4ML_CSIM_FAST) && !defined(__SYNTHESIS__) && defined(HLS4ML_FIXED_CORE_H) && __cplusplus >= 201703L
#define NNET_CSIM_FAST

#include <cstdint>
#include <type_traits>

#include "nnet_dialect.h"

namespace nnet {
namespace csim_fast {

using hls4ml_fixed::ovf;
using hls4ml_fixed::quant;

template <quant Q, ovf O, int N> struct modes {
    static constexpr quant quantization = Q;
    static constexpr ovf overflow = O;
    static constexpr int saturation_bits = N;
};

// The write modes of any of our fixed-point types (ap or ac face), found through its `writable` base.
template <class F, int W, int I, bool S, bool K, quant Q, ovf O, int N>
modes<Q, O, N> modes_of(const hls4ml_fixed::writable<F, W, I, S, K, Q, O, N> *);

template <class T, class = void> struct has_modes : std::false_type {};
template <class T>
struct has_modes<T, typename hls4ml_fixed::void_type<decltype(modes_of(static_cast<const T *>(nullptr)))>::type>
    : std::true_type {};

template <class T> constexpr int raw_bits() { return T::width + !T::is_signed; }

// Whether `accum_T += data_T * weight_T` may run as integers, and the machine word it runs in.
template <class data_T, class weight_T, class accum_T, bool Typed = has_modes<data_T>::value &&
                                                                    has_modes<weight_T>::value &&
                                                                    has_modes<accum_T>::value>
struct integer_mac {
    static constexpr bool enabled = false;
};

template <class data_T, class weight_T, class accum_T> struct integer_mac<data_T, weight_T, accum_T, true> {
    using accum_modes = decltype(modes_of(static_cast<const accum_T *>(nullptr)));
    static constexpr int product_bits = raw_bits<data_T>() + raw_bits<weight_T>();
    // Product bits below the accum LSB (> 0: quantized away; < 0: the product is shifted up).
    static constexpr int drop = data_T::fraction_bits + weight_T::fraction_bits - accum_T::fraction_bits;
    static constexpr quant rounding = accum_modes::quantization;
    static constexpr bool rounds = drop > 0 && rounding != quant::trn;
    // 32-bit words when the product (plus a rounding carry) and the accumulator fit, else 64-bit.
    static constexpr bool narrow = product_bits + rounds <= 32 && accum_T::width <= 32;
    using word = std::conditional_t<narrow, int32_t, int64_t>;
    using unsigned_word = std::make_unsigned_t<word>;
    static constexpr int word_bits = 8 * int(sizeof(word));
    static constexpr bool wraps = accum_modes::overflow == ovf::wrap && accum_modes::saturation_bits == 0;
    static constexpr bool separable = drop <= 0 || rounding == quant::trn || rounding == quant::rnd ||
                                      rounding == quant::rnd_min_inf;
    static constexpr bool enabled = wraps && separable && product_bits + rounds <= word_bits &&
                                    accum_T::width <= word_bits && drop < word_bits && -drop < word_bits;

    // A convolution's sums run in 16-bit lanes (twice as many per vector as 32-bit ones) when the
    // accumulator has at most 16 bits, the values fit in 16 and the scaled product is a plain shift of
    // the product p (truncation, or no dropped bits): its low 16 bits are then made of the halves of p,
    // (high << (16 - drop)) | (low >> drop), which g++ vectorises as 16-bit multiplies high and low.
    // Only the low 16 bits matter: the sum wraps to the accumulator's width at the end.
    static constexpr bool halves = accum_T::width <= 16 && raw_bits<data_T>() <= 16 && raw_bits<weight_T>() <= 16 &&
                                   (drop <= 0 || rounding == quant::trn) && drop < 16 && -drop < 16;
    using lane = std::conditional_t<halves, uint16_t, unsigned_word>;

    // The exact product d * w written at the accum LSB, as the accumulator's rounding mode does it.
    static unsigned_word scaled(word product) {
        if constexpr (drop > 0) {
            constexpr word half = rounding == quant::trn ? 0 : word(1) << (drop - 1);
            constexpr word offset = rounding == quant::rnd_min_inf ? half - 1 : half;
            return unsigned_word((product + offset) >> drop);
        } else {
            return unsigned_word(product) << -drop;
        }
    }

    // scaled(d * w) modulo the lane's width, from the raw values d and w.
    template <class D, class W> static lane product(D data, W weight) {
        if constexpr (!halves) {
            return scaled(word(data) * word(weight));
        } else {
            const int16_t d = int16_t(data), w = int16_t(weight);
            // (unsigned 32-bit: the low half of the product without a signed overflow)
            const uint16_t low = uint16_t(uint32_t(uint16_t(d)) * uint32_t(uint16_t(w)));
            if constexpr (drop <= 0) {
                return uint16_t(uint32_t(low) << -drop);
            } else {
                const uint16_t high = uint16_t((int32_t(d) * int32_t(w)) >> 16);
                return uint16_t(uint16_t(uint32_t(high) << (16 - drop)) | uint16_t(low >> drop));
            }
        }
    }
};

// The raw integers of an array of our fixed-point values (one data member: the raw integer).
template <class T> inline const typename T::raw_type *raw_values(const T *values) {
    static_assert(sizeof(T) == sizeof(typename T::raw_type), "fixed-point value with more than its raw integer");
    return reinterpret_cast<const typename T::raw_type *>(values);
}

// N values of T kept between calls (per thread where the library is loaded: NNET_PERSISTENT), shared by
// every kernel asking for the same T and N: each fills it whole before reading it, and the layers run
// one after the other. Out of line, so that the caller holds a plain pointer: the address of a
// thread-local array is otherwise recomputed (a __tls_get_addr call) wherever g++ runs short of
// registers, pixel after pixel.
template <class T, unsigned N> __attribute__((noinline)) T *persistent_buffer() {
    NNET_PERSISTENT T buffer[N];
    return buffer;
}

// Whether T is one of our fixed-point types with a machine integer as raw value, so that, within T, the
// order of values is the order of raw integers and a raw integer copied is the value copied.
template <class T, bool Typed = has_modes<T>::value> struct machine_raw : std::false_type {};
template <class T> struct machine_raw<T, true> : std::is_integral<typename T::raw_type> {};

// The value of T whose raw integer is `raw`.
template <class T> inline T from_raw(typename T::raw_type raw) {
    T value;
    value.raw_ = raw;
    return value;
}

template <class accum_T, class unsigned_word> inline accum_T accum_from_word(unsigned_word sum) {
    accum_T result;
    using raw = typename accum_T::raw_type;
    result.raw_ = hls4ml_fixed::wrap_to<accum_T::width, accum_T::is_signed>(raw(sum));
    return result;
}

// acc_j = bias_j; acc_j += data_i * w[i][j] for every i; res_j = acc_j, as nnet::dense_latency.
template <class data_T, class res_T, typename CONFIG_T>
void dense_integer(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                   const typename CONFIG_T::weight_t weights[CONFIG_T::n_in * CONFIG_T::n_out],
                   const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    typedef typename CONFIG_T::accum_t accum_t;
    typedef integer_mac<data_T, typename CONFIG_T::weight_t, accum_t> mac;
    typedef typename mac::word word;
    typename mac::unsigned_word acc[CONFIG_T::n_out];
    for (unsigned j = 0; j < CONFIG_T::n_out; j++)
        acc[j] = typename mac::unsigned_word(accum_t(biases[j]).raw_);
    const auto *data_raw = raw_values(data);
    const auto *weight_raw = raw_values(weights);
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        const word value = word(data_raw[i]);
        if (value == 0)
            continue; // a zero product adds an exact 0 in every mode this path takes
        const auto *row = weight_raw + i * CONFIG_T::n_out;
        for (unsigned j = 0; j < CONFIG_T::n_out; j++)
            acc[j] += mac::scaled(value * word(row[j]));
    }
    for (unsigned j = 0; j < CONFIG_T::n_out; j++)
        res[j] = accum_from_word<accum_t>(acc[j]);
}

} // namespace csim_fast
} // namespace nnet

#endif
#endif
