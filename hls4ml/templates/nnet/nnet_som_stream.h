// SOM layer for io_stream: the input vector in one element or in several of equal size (a large n_in
// split into chunks), one element out.
//
// The chunks are read one after the other into the vector (read_whole, one element per cycle), which
// then goes through the io_parallel nnet::som or nnet::som_dense (nnet_som.h) unchanged: same config
// struct, same strategy (the Resource fold starts when the last chunk is in), same codebook (or dense
// weights) layout, same bits.
#ifndef NNET_SOM_STREAM_H_
#define NNET_SOM_STREAM_H_

#include "nnet_som.h"
#include "nnet_stream.h"

namespace nnet {

// The n_in input values from their stream elements (one element or several that split n_in evenly).
template <class data_T, typename CONFIG_T>
inline void som_read_input(stream<data_T> &data, typename data_T::value_type values[CONFIG_T::n_in]) {
    NNET_INLINE
    static_assert(CONFIG_T::n_in % data_T::size == 0, "som stream: the input elements must split n_in evenly");
    read_whole<CONFIG_T::n_in, data_T>(data, values);
}

template <class data_T, class res_T, typename CONFIG_T>
void som(stream<data_T> &data, stream<res_T> &res,
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    typename data_T::value_type in[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(in)
    som_read_input<data_T, CONFIG_T>(data, in);
    res_T out;
    som<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in, out.data, codebook, labels);
    res.write(out);
}

// The SOM with a lookup array (nnet_som.h), one element in, one element out.
template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som(stream<data_T> &data, stream<res_T> &res,
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t labels[CONFIG_T::n_units], const table_T lookup[]) {
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    typename data_T::value_type in[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(in)
    som_read_input<data_T, CONFIG_T>(data, in);
    res_T out;
    som<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in, out.data, codebook, labels, lookup);
    res.write(out);
}

// The SOM as a Dense layer plus an argmax (nnet_som.h), one element in, one element out.
template <class data_T, class res_T, typename CONFIG_T>
void som_dense(stream<data_T> &data, stream<res_T> &res,
               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
               const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    typename data_T::value_type in[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(in)
    som_read_input<data_T, CONFIG_T>(data, in);
    res_T out;
    som_dense<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in, out.data, weights, biases,
                                                                                 labels);
    res.write(out);
}

// The dense SOM with a lookup array (hexagonal unit coordinates), one element in, one element out.
template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som_dense(stream<data_T> &data, stream<res_T> &res,
               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
               const typename CONFIG_T::label_t labels[CONFIG_T::n_units], const table_T lookup[]) {
    static_assert(res_T::size == CONFIG_T::n_out, "som stream: the result element must hold the n_out values");
    typename data_T::value_type in[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(in)
    som_read_input<data_T, CONFIG_T>(data, in);
    res_T out;
    som_dense<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in, out.data, weights, biases,
                                                                                 labels, lookup);
    res.write(out);
}

} // namespace nnet

#endif
