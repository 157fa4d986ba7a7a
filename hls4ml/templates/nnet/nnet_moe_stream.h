// Mixture of Dense (moe) or FFN (moe_ffn) experts, io_stream: per token one element of n_in features and one element of
// n_experts router logits in, one element of n_out outputs out; each token goes through the
// io_parallel kernel's row (nnet_moe.h) unchanged, so the bits are those of io_parallel.
#ifndef NNET_MOE_STREAM_H_
#define NNET_MOE_STREAM_H_

#include "nnet_moe.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class logit_T, class res_T, typename CONFIG_T>
void moe(stream<data_T> &data, stream<logit_T> &logits, stream<res_T> &res,
         const typename CONFIG_T::weight_t weights[CONFIG_T::n_experts * CONFIG_T::n_in * CONFIG_T::n_out],
         const typename CONFIG_T::bias_t biases[CONFIG_T::n_experts * CONFIG_T::n_out],
         const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
         const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    static_assert(data_T::size == CONFIG_T::n_in, "moe stream: one element of n_in features per token");
    static_assert(logit_T::size == CONFIG_T::n_experts, "moe stream: one element of n_experts logits per token");
    static_assert(res_T::size == CONFIG_T::n_out, "moe stream: one element of n_out outputs per token");
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        NNET_PIPELINE(CONFIG_T::reuse_factor)
        const data_T in = data.read();
        const logit_T scores = logits.read();
        res_T out;
        moe_row<typename data_T::value_type, typename logit_T::value_type, typename res_T::value_type, CONFIG_T>(
            in.data, scores.data, out.data, weights, biases, exp_table, inv_table);
        res.write(out);
    }
}

template <class data_T, class logit_T, class res_T, typename CONFIG_T>
void moe_ffn(stream<data_T> &data, stream<logit_T> &logits, stream<res_T> &res,
             const typename CONFIG_T::weight_t weights[CONFIG_T::n_experts * CONFIG_T::n_in * CONFIG_T::n_hidden],
             const typename CONFIG_T::bias_t biases[CONFIG_T::n_experts * CONFIG_T::n_hidden],
             const typename CONFIG_T::weight2_t weights2[CONFIG_T::n_experts * CONFIG_T::n_hidden * CONFIG_T::n_out],
             const typename CONFIG_T::bias2_t biases2[CONFIG_T::n_experts * CONFIG_T::n_out],
             const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
             const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    static_assert(data_T::size == CONFIG_T::n_in, "moe_ffn stream: one element of n_in features per token");
    static_assert(logit_T::size == CONFIG_T::n_experts, "moe_ffn stream: one element of n_experts logits per token");
    static_assert(res_T::size == CONFIG_T::n_out, "moe_ffn stream: one element of n_out outputs per token");
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        NNET_PIPELINE(CONFIG_T::reuse_factor)
        const data_T in = data.read();
        const logit_T scores = logits.read();
        res_T out;
        moe_ffn_row<typename data_T::value_type, typename logit_T::value_type, typename res_T::value_type, CONFIG_T>(
            in.data, scores.data, out.data, weights, biases, weights2, biases2, exp_table, inv_table);
        res.write(out);
    }
}

} // namespace nnet

#endif
