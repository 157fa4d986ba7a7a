// Einsum of two tensors and EinsumDense, io_stream: a product may read any value of its operands, so
// each input stream is read whole into a buffer (a copy of its values), the io_parallel kernel
// computes the result (nnet_einsum.h, the same writes), and the result is streamed out in elements of
// res_T (copies).
#ifndef NNET_EINSUM_STREAM_H_
#define NNET_EINSUM_STREAM_H_

#include "nnet_einsum.h"
#include "nnet_stream.h"

namespace nnet {

// The n values of a stream, element after element, into `buffer` (each a copy).
template <unsigned n, class data_T>
inline void read_whole(stream<data_T> &data, typename data_T::value_type buffer[n]) {
    NNET_INLINE
    for (unsigned e = 0; e < stream_elements<data_T, n>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        NNET_UNROLL
        for (unsigned j = 0; j < data_T::size; j++) {
            buffer[e * data_T::size + j] = in[j];
        }
    }
}

// The n values of `buffer` onto a stream, res_T::size values per element.
template <unsigned n, class res_T>
inline void write_whole(const typename res_T::value_type buffer[n], stream<res_T> &res) {
    NNET_INLINE
    for (unsigned e = 0; e < stream_elements<res_T, n>::count; e++) {
        NNET_PIPELINE(1)
        res_T out;
        NNET_UNROLL
        for (unsigned j = 0; j < res_T::size; j++) {
            out[j] = buffer[e * res_T::size + j];
        }
        res.write(out);
    }
}

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
