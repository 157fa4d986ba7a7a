// Sparse-soft-top-k MoE router, io_stream: one token's n_in logits are one stream element (n_rows of
// them per sample); each goes through the io_parallel kernel's row (nnet_router_soft.h) unchanged, and
// its n_out results leave as one element, II 1 per token.
#ifndef NNET_ROUTER_SOFT_STREAM_H_
#define NNET_ROUTER_SOFT_STREAM_H_

#include "nnet_router_soft.h"
#include "nnet_stream.h"

namespace nnet {

// The tokens one stream element each; the mask by soft_mask_kernel<cubic> (nnet_router_soft.h).
template <class data_T, class res_T, typename CONFIG_T, bool cubic, class recip_T>
void soft_router_tokens(stream<data_T> &data, stream<res_T> &res,
                        const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                        const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                        const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size], const recip_T *recip) {
    static_assert(data_T::size == CONFIG_T::n_in, "soft_router stream: the input must be one element of n_in logits");
    static_assert(res_T::size == CONFIG_T::n_out, "soft_router stream: the result must be one element of n_out values");
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        soft_router_row<typename data_T::value_type, typename res_T::value_type, CONFIG_T, cubic>(
            in.data, out.data, exp_table, inv_table, norm_table, recip);
        res.write(out);
    }
}

// p = 2: the mask by nnet_softtopk.h and its reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_router(stream<data_T> &data, stream<res_T> &res,
                 const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                 const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                 const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size],
                 const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    soft_router_tokens<data_T, res_T, CONFIG_T, false>(data, res, exp_table, inv_table, norm_table, recip);
}

// p = 4/3: the mask by nnet_softtopk_cubic.h, no reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_router_cubic(stream<data_T> &data, stream<res_T> &res,
                       const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                       const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                       const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size]) {
    const bool *no_table = 0;
    soft_router_tokens<data_T, res_T, CONFIG_T, true>(data, res, exp_table, inv_table, norm_table, no_table);
}

} // namespace nnet

#endif
