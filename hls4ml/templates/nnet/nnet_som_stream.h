// SOM layer for io_stream: one element holding the whole input vector in, one element out.
//
// The vector goes through the io_parallel nnet::som or nnet::som_dense (nnet_som.h) unchanged: same
// config struct, same codebook (or dense weights) layout, same bits.
#ifndef NNET_SOM_STREAM_H_
#define NNET_SOM_STREAM_H_

#include "nnet_som.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void som(stream<data_T> &data, stream<res_T> &res,
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    static_assert(data_T::size == CONFIG_T::n_in, "som stream: the input element must hold the n_in values");
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    const data_T in = data.read();
    res_T out;
    som<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, codebook, labels);
    res.write(out);
}

// The SOM with a lookup array (nnet_som.h), one element in, one element out.
template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som(stream<data_T> &data, stream<res_T> &res,
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t labels[CONFIG_T::n_units], const table_T lookup[]) {
    static_assert(data_T::size == CONFIG_T::n_in, "som stream: the input element must hold the n_in values");
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    const data_T in = data.read();
    res_T out;
    som<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, codebook, labels, lookup);
    res.write(out);
}

// The SOM as a Dense layer plus an argmax (nnet_som.h), one element in, one element out.
template <class data_T, class res_T, typename CONFIG_T>
void som_dense(stream<data_T> &data, stream<res_T> &res,
               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
               const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    static_assert(data_T::size == CONFIG_T::n_in, "som stream: the input element must hold the n_in values");
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    const data_T in = data.read();
    res_T out;
    som_dense<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, weights, biases,
                                                                                 labels);
    res.write(out);
}

// The dense SOM with a lookup array (hexagonal unit coordinates), one element in, one element out.
template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som_dense(stream<data_T> &data, stream<res_T> &res,
               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
               const typename CONFIG_T::label_t labels[CONFIG_T::n_units], const table_T lookup[]) {
    static_assert(data_T::size == CONFIG_T::n_in, "som stream: the input element must hold the n_in values");
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    const data_T in = data.read();
    res_T out;
    som_dense<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, weights, biases,
                                                                                 labels, lookup);
    res.write(out);
}

} // namespace nnet

#endif
