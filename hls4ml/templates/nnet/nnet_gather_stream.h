// Gathers for io_stream: the whole input tensor is buffered, the io_parallel kernel of the same name
// (nnet_gather.h) computes the outputs, which are written element by element; the bits are those of
// io_parallel. Any packing whose sizes divide the tensors works.
#ifndef NNET_GATHER_STREAM_H_
#define NNET_GATHER_STREAM_H_

#include "nnet_gather.h"
#include "nnet_stream.h"

namespace nnet {

// The n values of a stream, in order.
template <class data_T, unsigned n> inline void read_all(stream<data_T> &data, typename data_T::value_type values[n]) {
    for (unsigned e = 0; e < stream_elements<data_T, n>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        NNET_UNROLL
        for (unsigned j = 0; j < data_T::size; j++) {
            values[e * data_T::size + j] = in[j];
        }
    }
}

// n values written to a stream, in order.
template <class res_T, unsigned n> inline void write_all(const typename res_T::value_type values[n], stream<res_T> &res) {
    for (unsigned e = 0; e < stream_elements<res_T, n>::count; e++) {
        NNET_PIPELINE(1)
        res_T out;
        NNET_UNROLL
        for (unsigned j = 0; j < res_T::size; j++) {
            out[j] = values[e * res_T::size + j];
        }
        res.write(out);
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void gather(stream<data_T> &data, stream<res_T> &res, const unsigned index[CONFIG_T::n_out]) {
    typename data_T::value_type buffer[CONFIG_T::n_in];
    typename res_T::value_type picked[CONFIG_T::n_out];
    read_all<data_T, CONFIG_T::n_in>(data, buffer);
    gather<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(buffer, picked, index);
    write_all<res_T, CONFIG_T::n_out>(picked, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void reduce(stream<data_T> &data, stream<res_T> &res, const unsigned index[CONFIG_T::n_out * CONFIG_T::n_reduce]) {
    typename data_T::value_type buffer[CONFIG_T::n_in];
    typename res_T::value_type reduced[CONFIG_T::n_out];
    read_all<data_T, CONFIG_T::n_in>(data, buffer);
    reduce<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(buffer, reduced, index);
    write_all<res_T, CONFIG_T::n_out>(reduced, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void interpolate(stream<data_T> &data, stream<res_T> &res, const unsigned index[CONFIG_T::n_out * CONFIG_T::n_reduce],
                 const typename CONFIG_T::weight_t weight[CONFIG_T::n_out * CONFIG_T::n_reduce]) {
    typename data_T::value_type buffer[CONFIG_T::n_in];
    typename res_T::value_type mixed[CONFIG_T::n_out];
    read_all<data_T, CONFIG_T::n_in>(data, buffer);
    interpolate<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(buffer, mixed, index, weight);
    write_all<res_T, CONFIG_T::n_out>(mixed, res);
}

} // namespace nnet

#endif
