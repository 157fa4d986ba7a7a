// Sparse soft top-k, io_stream: the input vector is one stream element; it goes through the
// io_parallel kernel (nnet_softtopk.h; p = 4/3: nnet_softtopk_cubic.h) unchanged, and the n_in results
// leave as one element.
#ifndef NNET_SOFTTOPK_STREAM_H_
#define NNET_SOFTTOPK_STREAM_H_

#include "nnet_softtopk.h"
#include "nnet_softtopk_cubic.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void soft_topk(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    static_assert(data_T::size == CONFIG_T::n_in, "soft_topk stream: the input must be one element of n_in values");
    static_assert(res_T::size == CONFIG_T::n_in, "soft_topk stream: the result must be one element of n_in values");
    NNET_PIPELINE(1)
    const data_T in = data.read();
    res_T out;
    soft_topk<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, recip);
    res.write(out);
}

template <class data_T, class res_T, typename CONFIG_T>
void soft_topk_cubic(stream<data_T> &data, stream<res_T> &res) {
    static_assert(data_T::size == CONFIG_T::n_in, "soft_topk_cubic stream: the input must be one element of n_in values");
    static_assert(res_T::size == CONFIG_T::n_in, "soft_topk_cubic stream: the result must be one element of n_in values");
    NNET_PIPELINE(1)
    const data_T in = data.read();
    res_T out;
    soft_topk_cubic<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data);
    res.write(out);
}

} // namespace nnet

#endif
