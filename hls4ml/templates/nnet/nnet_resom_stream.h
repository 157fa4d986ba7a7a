// ReSOM layer for io_stream: the x vector and the y vector, each in one element or in several of equal
// size (chunks, read one after the other: nnet_som_stream.h som_read_input), one element out. The
// vectors go through the io_parallel nnet::resom (nnet_resom.h) unchanged: same config struct, same
// strategy, same arrays, same bits.
#ifndef NNET_RESOM_STREAM_H_
#define NNET_RESOM_STREAM_H_

#include "nnet_resom.h"
#include "nnet_som_stream.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_x_T, class data_y_T, class res_T, typename CONFIG_T>
void resom(stream<data_x_T> &data_x, stream<data_y_T> &data_y, stream<res_T> &res,
           const typename CONFIG_T::codebook_x_t codebook_x[CONFIG_T::n_units_x * CONFIG_T::n_in],
           const typename CONFIG_T::codebook_y_t codebook_y[CONFIG_T::n_units_y * CONFIG_T::n_in_y],
           const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
           const typename CONFIG_T::label_t labels[CONFIG_T::n_units_x + CONFIG_T::n_units_y],
           const typename CONFIG_T::activity_t table_x[CONFIG_T::table_size],
           const typename CONFIG_T::activity_t table_y[CONFIG_T::table_size]) {
    static_assert(res_T::size == CONFIG_T::n_out, "resom stream: the result element must hold the n_out values");
    typename data_x_T::value_type in_x[CONFIG_T::n_in];
    typename data_y_T::value_type in_y[CONFIG_T::n_in_y];
    NNET_ARRAY_PARTITION_COMPLETE(in_x)
    NNET_ARRAY_PARTITION_COMPLETE(in_y)
    som_read_input<data_x_T, resom_map<CONFIG_T, false>>(data_x, in_x);
    som_read_input<data_y_T, resom_map<CONFIG_T, true>>(data_y, in_y);
    res_T out;
    resom<typename data_x_T::value_type, typename data_y_T::value_type, typename res_T::value_type, CONFIG_T>(
        in_x, in_y, out.data, codebook_x, codebook_y, lateral, labels, table_x, table_y);
    res.write(out);
}

} // namespace nnet

#endif
