// Layer normalization, io_parallel: every row of n_slice consecutive values of data[n_in] (the last
// axis of a channels-last tensor) becomes (x - mean) / sqrt(var + eps) * scale + bias, computed with
// an exact square root and an exact division (reference/layernorm.py is the numpy twin; the bound is
// derived in docs/sequence.md). Per row, with n = n_slice:
//
//   S = sum x,  D_i = n x_i - S,  Q = sum D_i^2,  V = n Q + eps n^4      (exact in their types)
//   root = floor(sqrt(V)) on root_t's grid,  q_i = trunc(n D_i / root) on norm_t's grid
//   res_i = q_i * scale_i + bias_i
//
// since (x_i - mean) / sqrt(var + eps) = n D_i / sqrt(V). The caller passes eps n^4 as a double,
// written into variance_t (the one rounding besides root and q).
#ifndef NNET_LAYERNORM_H_
#define NNET_LAYERNORM_H_

#include "nnet_common.h"

namespace nnet {

struct layernorm_config {
    // Required typedefs: sum_t, diff_t, variance_t, root_t, norm_t, count_t, scale_t, bias_t.
    static const unsigned n_in = 16;
    static const unsigned n_slice = 16; // values per row (the normalized axis)
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// numerator / divisor truncated toward zero on norm_T's grid (norm_T signed): the largest magnitude
// q with q * divisor <= |numerator|, bit by bit below the sign bit; 0 when the divisor is 0.
template <class norm_T, class numerator_T, class root_T>
inline norm_T layernorm_divide(const numerator_T &numerator, const root_T &divisor) {
    NNET_INLINE
    norm_T quotient = 0;
    if (divisor == 0) {
        return quotient;
    }
    const bool negative = is_negative(numerator);
    NNET_UNROLL
    for (int bit = norm_T::width - 2; bit >= 0; bit--) {
        norm_T trial = quotient;
        trial[bit] = 1;
        const bool too_large =
            negative ? greater_than(trial * divisor, -numerator) : greater_than(trial * divisor, numerator);
        if (!too_large) {
            quotient = trial;
        }
    }
    if (negative) {
        quotient = -quotient;
    }
    return quotient;
}

template <class data_T, class res_T, typename CONFIG_T>
inline void layernorm_row(const data_T *data, res_T *res, const typename CONFIG_T::scale_t *scale,
                          const typename CONFIG_T::bias_t *bias, const typename CONFIG_T::variance_t &epsilon) {
    NNET_INLINE
    const typename CONFIG_T::count_t count = CONFIG_T::n_slice;
    typename CONFIG_T::sum_t sum = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_slice; i++) {
        sum = sum + data[i];
    }
    typename CONFIG_T::diff_t diff[CONFIG_T::n_slice];
    typename CONFIG_T::variance_t squares = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_slice; i++) {
        diff[i] = data[i] * count - sum;
        squares = squares + diff[i] * diff[i];
    }
    const typename CONFIG_T::variance_t variance = squares * count + epsilon;
    const typename CONFIG_T::root_t root = exact_root<typename CONFIG_T::root_t>(variance);
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_slice; i++) {
        const typename CONFIG_T::norm_t norm = layernorm_divide<typename CONFIG_T::norm_t>(diff[i] * count, root);
        res[i] = norm * scale[i] + bias[i];
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void layernorm(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
               const typename CONFIG_T::scale_t scale[CONFIG_T::n_slice],
               const typename CONFIG_T::bias_t bias[CONFIG_T::n_slice], typename CONFIG_T::variance_t epsilon) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::n_in % CONFIG_T::n_slice == 0, "layernorm: n_in must be a multiple of n_slice");
    NNET_UNROLL
    for (unsigned row = 0; row < CONFIG_T::n_in / CONFIG_T::n_slice; row++) {
        layernorm_row<data_T, res_T, CONFIG_T>(data + row * CONFIG_T::n_slice, res + row * CONFIG_T::n_slice, scale,
                                               bias, epsilon);
    }
}

} // namespace nnet

#endif
