// Gathers for io_stream: the whole input tensor is buffered, the io_parallel kernel of the same name
// (nnet_gather.h) computes the outputs, which are written element by element; the bits are those of
// io_parallel. Any packing whose sizes divide the tensors works.
#ifndef NNET_GATHER_STREAM_H_
#define NNET_GATHER_STREAM_H_

#include "nnet_gather.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void gather(stream<data_T> &data, stream<res_T> &res, const unsigned index[CONFIG_T::n_out]) {
    typename data_T::value_type buffer[CONFIG_T::n_in];
    typename res_T::value_type picked[CONFIG_T::n_out];
    read_whole<CONFIG_T::n_in, data_T>(data, buffer);
    gather<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(buffer, picked, index);
    write_whole<CONFIG_T::n_out, res_T>(picked, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void reduce(stream<data_T> &data, stream<res_T> &res, const unsigned index[CONFIG_T::n_out * CONFIG_T::n_reduce]) {
    typename data_T::value_type buffer[CONFIG_T::n_in];
    typename res_T::value_type reduced[CONFIG_T::n_out];
    read_whole<CONFIG_T::n_in, data_T>(data, buffer);
    reduce<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(buffer, reduced, index);
    write_whole<CONFIG_T::n_out, res_T>(reduced, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void interpolate(stream<data_T> &data, stream<res_T> &res, const unsigned index[CONFIG_T::n_out * CONFIG_T::n_reduce],
                 const typename CONFIG_T::weight_t weight[CONFIG_T::n_out * CONFIG_T::n_reduce]) {
    typename data_T::value_type buffer[CONFIG_T::n_in];
    typename res_T::value_type mixed[CONFIG_T::n_out];
    read_whole<CONFIG_T::n_in, data_T>(data, buffer);
    interpolate<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(buffer, mixed, index, weight);
    write_whole<CONFIG_T::n_out, res_T>(mixed, res);
}

} // namespace nnet

#endif
