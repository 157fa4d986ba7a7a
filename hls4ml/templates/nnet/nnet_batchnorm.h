// Batch normalization (inference), io_parallel: res_i = data_i * scale_c + bias_c, c = i % n_scale_bias.
//
// The product and the sum are exact (full precision); the only write is into res_T. For a dense
// input n_scale_bias = n_in; for a channels-last tensor it is the number of channels.
#ifndef NNET_BATCHNORM_H_
#define NNET_BATCHNORM_H_

#include "nnet_common.h"

namespace nnet {

struct batchnorm_config {
    // Required typedefs: scale_t, bias_t.
    static const unsigned n_in = 10;
    static const unsigned n_scale_bias = 10;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

template <class scale_T, class bias_T, unsigned NScaleBias> struct scale_shift_op {
    const scale_T *scale;
    const bias_T *bias;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned i) const {
        out = x * scale[i % NScaleBias] + bias[i % NScaleBias];
    }
};

template <class data_T, class res_T, typename CONFIG_T>
void normalize(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
               const typename CONFIG_T::scale_t scale[CONFIG_T::n_scale_bias],
               const typename CONFIG_T::bias_t bias[CONFIG_T::n_scale_bias]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    constexpr unsigned multiplier_limit = ceil_div(CONFIG_T::n_in, CONFIG_T::reuse_factor);
    NNET_ALLOCATION_MUL(multiplier_limit)
    typedef scale_shift_op<typename CONFIG_T::scale_t, typename CONFIG_T::bias_t, CONFIG_T::n_scale_bias> op;
    elementwise<CONFIG_T::n_in>(data, res, op{scale, bias});
}

} // namespace nnet

#endif
