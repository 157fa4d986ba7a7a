// ReSOM of M maps for io_stream: one element holding each map's whole input vector in, one element out.
// The vectors go through the io_parallel nnet::resom_maps (nnet_resom_maps.h) unchanged: same config
// struct, same arrays, same bits.
#ifndef NNET_RESOM_MAPS_STREAM_H_
#define NNET_RESOM_MAPS_STREAM_H_

#include "nnet_resom_maps.h"
#include "nnet_stream.h"

namespace nnet {

template <class res_T, class CONFIG_T, class... data_T>
void resom_maps(stream<res_T> &res, const typename CONFIG_T::codebook_t codebooks[CONFIG_T::n_codebook],
                const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                const typename CONFIG_T::label_t labels[CONFIG_T::n_units],
                const typename CONFIG_T::activity_t tables[CONFIG_T::n_maps * CONFIG_T::table_size],
                stream<data_T> &...data) {
    static_assert(res_T::size == CONFIG_T::n_out, "resom_maps stream: the result element must hold the n_out values");
    res_T out;
    // each element is read into a temporary that lives until the call returns
    resom_maps<typename res_T::value_type, CONFIG_T, typename data_T::value_type...>(out.data, codebooks, matrix, labels,
                                                                                     tables, data.read().data...);
    res.write(out);
}

} // namespace nnet

#endif
