// Dense layer for io_stream: one element of n_in values in, one element of n_out values out.
//
// The element's values go through the io_parallel nnet::dense (nnet_dense.h) unchanged, so the
// arithmetic, the strategies and the reuse factor are exactly those of io_parallel (same config
// struct, same weights layout [n_in][n_out], same bits).
#ifndef NNET_DENSE_STREAM_H_
#define NNET_DENSE_STREAM_H_

#include "nnet_dense.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void dense(stream<data_T> &data, stream<res_T> &res,
           const typename CONFIG_T::weight_t weights[CONFIG_T::n_in * CONFIG_T::n_out],
           const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    static_assert(data_T::size == CONFIG_T::n_in, "dense stream: the input element must hold the n_in values");
    static_assert(res_T::size == CONFIG_T::n_out, "dense stream: the result element must hold the n_out values");
    const data_T in = data.read();
    res_T out;
    dense<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, weights, biases);
    res.write(out);
}

} // namespace nnet

#endif
