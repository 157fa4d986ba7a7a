// Layer normalization, io_stream: every stream element holds whole rows (one token: the last axis),
// each normalized by the io_parallel row kernel (nnet_layernorm.h), so the bits are the same.
#ifndef NNET_LAYERNORM_STREAM_H_
#define NNET_LAYERNORM_STREAM_H_

#include "nnet_layernorm.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void layernorm(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::scale_t scale[CONFIG_T::n_slice],
               const typename CONFIG_T::bias_t bias[CONFIG_T::n_slice], typename CONFIG_T::variance_t epsilon) {
    static_assert(data_T::size == res_T::size, "layernorm stream: element sizes differ");
    static_assert(data_T::size % CONFIG_T::n_slice == 0, "layernorm stream: an element must hold whole rows");
    for (unsigned e = 0; e < stream_elements<data_T, CONFIG_T::n_in>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        NNET_UNROLL
        for (unsigned row = 0; row < data_T::size / CONFIG_T::n_slice; row++) {
            layernorm_row<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(
                in.data + row * CONFIG_T::n_slice, out.data + row * CONFIG_T::n_slice, scale, bias, epsilon);
        }
        res.write(out);
    }
}

} // namespace nnet

#endif
