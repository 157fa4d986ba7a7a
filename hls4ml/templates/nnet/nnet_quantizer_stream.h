// The heterogeneous fixed-point quantizer, io_stream: the ops of nnet_quantizer.h applied to every
// value of every stream element (flat index e * size + j, so triple (e * size + j) % n_params).
#ifndef NNET_QUANTIZER_STREAM_H_
#define NNET_QUANTIZER_STREAM_H_

#include "nnet_activation_stream.h"
#include "nnet_quantizer.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void quantize_saturate(stream<data_T> &data, stream<res_T> &res,
                       const typename CONFIG_T::scale_t scale[CONFIG_T::n_params],
                       const typename CONFIG_T::lsb_t lsb[CONFIG_T::n_params],
                       const typename CONFIG_T::rounded_t low[CONFIG_T::n_params],
                       const typename CONFIG_T::rounded_t high[CONFIG_T::n_params]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, quantize_saturate_op<CONFIG_T>{scale, lsb, low, high});
}

template <class data_T, class res_T, typename CONFIG_T>
void quantize_wrap(stream<data_T> &data, stream<res_T> &res,
                   const typename CONFIG_T::scale_t scale[CONFIG_T::n_params],
                   const typename CONFIG_T::lsb_t lsb[CONFIG_T::n_params],
                   const typename CONFIG_T::rounded_t low[CONFIG_T::n_params],
                   const typename CONFIG_T::modulus_t modulus[CONFIG_T::n_params],
                   const typename CONFIG_T::inverse_t inverse[CONFIG_T::n_params]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, quantize_wrap_op<CONFIG_T>{scale, lsb, low, modulus, inverse});
}

} // namespace nnet

#endif
