// Hard top-k, io_stream: the input vector is one stream element; it goes through the io_parallel
// kernel (nnet_topk.h), whose result is written as one element of n_out values.
#ifndef NNET_TOPK_STREAM_H_
#define NNET_TOPK_STREAM_H_

#include "nnet_stream.h"
#include "nnet_topk.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T> void topk(stream<data_T> &data, stream<res_T> &res) {
    static_assert(data_T::size == CONFIG_T::n_in, "topk stream: the input must be one element of n_in values");
    static_assert(res_T::size == CONFIG_T::n_out, "topk stream: the result must be one element of n_out values");
    NNET_PIPELINE(1)
    const data_T in = data.read();
    res_T out;
    topk<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data);
    res.write(out);
}

} // namespace nnet

#endif
