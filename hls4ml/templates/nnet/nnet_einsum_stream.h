// Einsum of two tensors and EinsumDense, io_stream: a product may read any value of its operands, so
// each input stream is read whole into a buffer (a copy of its values), the io_parallel kernel
// computes the result (nnet_einsum.h, the same writes), and the result is streamed out in elements of
// res_T (copies).
#ifndef NNET_EINSUM_STREAM_H_
#define NNET_EINSUM_STREAM_H_

#include "nnet_einsum.h"
#include "nnet_stream.h"

namespace nnet {

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void einsum(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    typename input1_T::value_type first[CONFIG_T::n_in];
    typename input2_T::value_type second[CONFIG_T::n_in2];
    typename res_T::value_type result[CONFIG_T::n_out];
    read_whole<CONFIG_T::n_in, input1_T>(data1, first);
    read_whole<CONFIG_T::n_in2, input2_T>(data2, second);
    einsum<typename input1_T::value_type, typename input2_T::value_type, typename res_T::value_type, CONFIG_T>(
        first, second, result);
    write_whole<CONFIG_T::n_out, res_T>(result, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void einsum_dense(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::weight_t weights[CONFIG_T::n_in2],
                  const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    typename data_T::value_type input[CONFIG_T::n_in];
    typename res_T::value_type result[CONFIG_T::n_out];
    read_whole<CONFIG_T::n_in, data_T>(data, input);
    einsum_dense<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(input, result, weights, biases);
    write_whole<CONFIG_T::n_out, res_T>(result, res);
}

} // namespace nnet

#endif
