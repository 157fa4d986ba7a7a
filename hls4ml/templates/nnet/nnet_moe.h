// Mixture of Dense experts with conditional execution, io_parallel (docs/moe.md, "Conditional experts").
//
// Per token: n_in features x and n_experts router logits r. The Router's token choice (nnet_router.h,
// unchanged: k argmax passes on the logits, ties to the lower index; the gates through the stable
// softmax tables, renormalised over the k or not) picks the experts chosen[0..k-1] and their gates.
// Then only the k routed experts are computed: slot s selects expert chosen[s]'s weight set out of
// the E sets (a multiplexer per weight, or the expert's address in the weight ROM) and runs it through
// nnet::dense (nnet_dense.h), so each slot is one bank of ceil(n_in * n_out / reuse_factor)
// multipliers shared by all E experts, folded by the reuse factor and the strategy exactly as Dense.
// k banks instead of E: the multipliers an always-computed mixture would need shrink by E / k. The
// k * n_out gate products are folded by the reuse factor too (moe_combine).
//
// Arithmetic (bit for bit hls4ml/model/reference/moe.py):
//   out_s[j] = acc_j after acc_j = bias[e][j]; acc_j += x_i * w[e][i][j] (i = 0 .. n_in-1), in accum_t
//   (moe_ffn: h = that Dense into hidden_t, h = h > 0 ? h : 0, out_s = the second Dense of h into accum_t)
//   y_j = 0; y_j += gate_s * out_s[j] for s = 0 .. k-1 in rank order, each += a write into res_T.
// Weights are [expert][n_in][n_out] (each expert the Dense layout), biases [expert][n_out]; FFN
// experts [expert][n_in][n_hidden], [expert][n_hidden] and [expert][n_hidden][n_out], [expert][n_out].
#ifndef NNET_MOE_H_
#define NNET_MOE_H_

#include "nnet_common.h"
#include "nnet_dense.h"
#include "nnet_router.h"

namespace nnet {

struct moe_config {
    // Required typedefs: accum_t, weight_t, bias_t, gate_t, gate_accum_t, exp_table_t, inv_table_t,
    // exp_index_t, inv_index_t.
    static const unsigned n_in = 16;      // features per token
    static const unsigned n_out = 16;     // outputs per token
    static const unsigned n_hidden = 0;   // FFN experts (moe_ffn): the hidden width
    static const unsigned n_experts = 8;  // E
    static const unsigned k = 2;          // routed experts per token
    static const unsigned n_rows = 1;     // tokens per sample (row-major)
    static const bool renormalize = true;
    static const unsigned table_size = 1024;
    static const int exp_table_shift = 0;
    static const int exp_table_start = 0;
    static const int inv_table_shift = 0;
    static const int inv_table_start = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned strategy = latency;
    static const unsigned reuse_factor = 1;
};

// The Router's view of the config: n_in = the experts, accum_t = the sum of exponentials; the router_config
// defaults for what MoE does not use (no capacity, no Sinkhorn plan).
template <class CONFIG_T> struct moe_router_view : router_config {
    typedef typename CONFIG_T::exp_table_t exp_table_t;
    typedef typename CONFIG_T::inv_table_t inv_table_t;
    typedef typename CONFIG_T::exp_index_t exp_index_t;
    typedef typename CONFIG_T::inv_index_t inv_index_t;
    typedef typename CONFIG_T::gate_accum_t accum_t;
    static const unsigned n_in = CONFIG_T::n_experts;
    static const unsigned k = CONFIG_T::k;
    static const bool renormalize = CONFIG_T::renormalize;
    static const unsigned table_size = CONFIG_T::table_size;
    static const int exp_table_shift = CONFIG_T::exp_table_shift;
    static const int exp_table_start = CONFIG_T::exp_table_start;
    static const int inv_table_shift = CONFIG_T::inv_table_shift;
    static const int inv_table_start = CONFIG_T::inv_table_start;
};

// Dense's view of one expert product: n_in x n_out of weight_t into accum_t_ (FFN: the two layers).
template <class CONFIG_T, class accum_t_, class weight_t_, class bias_t_, unsigned N_in, unsigned N_out>
struct moe_expert_view {
    typedef accum_t_ accum_t;
    typedef weight_t_ weight_t;
    typedef bias_t_ bias_t;
    static const unsigned n_in = N_in;
    static const unsigned n_out = N_out;
    static const unsigned io_type = CONFIG_T::io_type;
    static const unsigned strategy = CONFIG_T::strategy;
    static const unsigned reuse_factor = CONFIG_T::reuse_factor;
    static const unsigned n_zeros = 0; // the selected weights change per token: no multiplier is constant
};

// The weight set of `expert` out of the E sets: one multiplexer per weight and bias.
template <class VIEW_T, unsigned Experts>
inline void moe_select_expert(unsigned expert, const typename VIEW_T::weight_t weights[Experts * VIEW_T::n_in * VIEW_T::n_out],
                              const typename VIEW_T::bias_t biases[Experts * VIEW_T::n_out],
                              typename VIEW_T::weight_t selected[VIEW_T::n_in * VIEW_T::n_out],
                              typename VIEW_T::bias_t selected_biases[VIEW_T::n_out]) {
    NNET_INLINE
    static const unsigned n_weights = VIEW_T::n_in * VIEW_T::n_out;
    NNET_UNROLL
    for (unsigned w = 0; w < n_weights; w++) {
        selected[w] = weights[expert * n_weights + w];
    }
    NNET_UNROLL
    for (unsigned j = 0; j < VIEW_T::n_out; j++) {
        selected_biases[j] = biases[expert * VIEW_T::n_out + j];
    }
}

// One routed expert's product: its weight set selected, then nnet::dense (one bank of multipliers).
template <class data_T, class VIEW_T, unsigned Experts>
inline void moe_expert_product(unsigned expert, const data_T data[VIEW_T::n_in], typename VIEW_T::accum_t out[VIEW_T::n_out],
                               const typename VIEW_T::weight_t weights[Experts * VIEW_T::n_in * VIEW_T::n_out],
                               const typename VIEW_T::bias_t biases[Experts * VIEW_T::n_out]) {
    NNET_INLINE
    typename VIEW_T::weight_t selected[VIEW_T::n_in * VIEW_T::n_out];
    typename VIEW_T::bias_t selected_biases[VIEW_T::n_out];
    moe_select_expert<VIEW_T, Experts>(expert, weights, biases, selected, selected_biases);
    dense<data_T, typename VIEW_T::accum_t, VIEW_T>(data, out, selected, selected_biases);
}

// The router of one token: the k chosen experts and their gates (nnet_router.h).
template <class logit_T, typename CONFIG_T>
inline void moe_route(const logit_T logits[CONFIG_T::n_experts], unsigned chosen[CONFIG_T::k],
                      typename CONFIG_T::gate_t gates[CONFIG_T::k],
                      const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                      const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    typedef moe_router_view<CONFIG_T> router_T;
    router_select<logit_T, router_T>(logits, chosen);
    router_gate_values<logit_T, typename CONFIG_T::gate_t, router_T>(logits, chosen, gates, exp_table, inv_table);
}

// res_j = sum over the slots s (in rank order) of gate_s * out_s[j], each += a write into res_T. The
// k * n_out products are folded like Dense's Resource strategy: reuse_factor pipelined steps of
// ceil(k * n_out / reuse_factor) multipliers, product m = j * k + s, so every output still adds its
// slots in rank order and the bits do not depend on the reuse factor.
template <class res_T, typename CONFIG_T>
inline void moe_combine(const typename CONFIG_T::gate_t gates[CONFIG_T::k],
                        const typename CONFIG_T::accum_t outs[CONFIG_T::k * CONFIG_T::n_out], res_T res[CONFIG_T::n_out]) {
    NNET_INLINE
    static const unsigned n_products = CONFIG_T::k * CONFIG_T::n_out;
    static const unsigned block = ceil_div(n_products, CONFIG_T::reuse_factor);
    res_T total[CONFIG_T::n_out];
    NNET_ARRAY_PARTITION_COMPLETE(total)
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_out; j++) {
        total[j] = 0;
    }
    for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned lane = 0; lane < block; lane++) {
            const unsigned m = step * block + lane;
            const unsigned j = m / CONFIG_T::k, s = m % CONFIG_T::k;
            if (m < n_products)
                total[j] += gates[s] * outs[s * CONFIG_T::n_out + j];
        }
    }
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_out; j++) {
        res[j] = total[j];
    }
}

// One token: route, then compute the k routed linear experts and sum their gated outputs.
template <class data_T, class logit_T, class res_T, typename CONFIG_T>
inline void moe_row(const data_T data[CONFIG_T::n_in], const logit_T logits[CONFIG_T::n_experts],
                    res_T res[CONFIG_T::n_out],
                    const typename CONFIG_T::weight_t weights[CONFIG_T::n_experts * CONFIG_T::n_in * CONFIG_T::n_out],
                    const typename CONFIG_T::bias_t biases[CONFIG_T::n_experts * CONFIG_T::n_out],
                    const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                    const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    typedef typename CONFIG_T::accum_t accum_t;
    typedef moe_expert_view<CONFIG_T, accum_t, typename CONFIG_T::weight_t, typename CONFIG_T::bias_t, CONFIG_T::n_in,
                            CONFIG_T::n_out>
        expert_T;
    unsigned chosen[CONFIG_T::k];
    typename CONFIG_T::gate_t gates[CONFIG_T::k];
    accum_t outs[CONFIG_T::k * CONFIG_T::n_out]; // slot s at s * n_out
    NNET_ARRAY_PARTITION_COMPLETE(chosen)
    NNET_ARRAY_PARTITION_COMPLETE(gates)
    NNET_ARRAY_PARTITION_COMPLETE(outs)
    moe_route<logit_T, CONFIG_T>(logits, chosen, gates, exp_table, inv_table);
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        moe_expert_product<data_T, expert_T, CONFIG_T::n_experts>(chosen[s], data, outs + s * CONFIG_T::n_out, weights,
                                                                 biases);
    }
    moe_combine<res_T, CONFIG_T>(gates, outs, res);
}

// One token with FFN experts: per routed expert relu(x W + b) into hidden_t, then W2, b2 into accum_t.
template <class data_T, class logit_T, class res_T, typename CONFIG_T>
inline void moe_ffn_row(const data_T data[CONFIG_T::n_in], const logit_T logits[CONFIG_T::n_experts],
                        res_T res[CONFIG_T::n_out],
                        const typename CONFIG_T::weight_t weights[CONFIG_T::n_experts * CONFIG_T::n_in * CONFIG_T::n_hidden],
                        const typename CONFIG_T::bias_t biases[CONFIG_T::n_experts * CONFIG_T::n_hidden],
                        const typename CONFIG_T::weight2_t weights2[CONFIG_T::n_experts * CONFIG_T::n_hidden * CONFIG_T::n_out],
                        const typename CONFIG_T::bias2_t biases2[CONFIG_T::n_experts * CONFIG_T::n_out],
                        const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                        const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    typedef typename CONFIG_T::hidden_t hidden_t;
    typedef moe_expert_view<CONFIG_T, hidden_t, typename CONFIG_T::weight_t, typename CONFIG_T::bias_t, CONFIG_T::n_in,
                            CONFIG_T::n_hidden>
        first_T;
    typedef moe_expert_view<CONFIG_T, typename CONFIG_T::accum_t, typename CONFIG_T::weight2_t,
                            typename CONFIG_T::bias2_t, CONFIG_T::n_hidden, CONFIG_T::n_out>
        second_T;
    unsigned chosen[CONFIG_T::k];
    typename CONFIG_T::gate_t gates[CONFIG_T::k];
    typename CONFIG_T::accum_t outs[CONFIG_T::k * CONFIG_T::n_out]; // slot s at s * n_out
    NNET_ARRAY_PARTITION_COMPLETE(chosen)
    NNET_ARRAY_PARTITION_COMPLETE(gates)
    NNET_ARRAY_PARTITION_COMPLETE(outs)
    moe_route<logit_T, CONFIG_T>(logits, chosen, gates, exp_table, inv_table);
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        hidden_t hidden[CONFIG_T::n_hidden];
        NNET_ARRAY_PARTITION_COMPLETE(hidden)
        moe_expert_product<data_T, first_T, CONFIG_T::n_experts>(chosen[s], data, hidden, weights, biases);
        NNET_UNROLL
        for (unsigned h = 0; h < CONFIG_T::n_hidden; h++) {
            if (!(hidden[h] > 0))
                hidden[h] = 0;
        }
        moe_expert_product<hidden_t, second_T, CONFIG_T::n_experts>(chosen[s], hidden, outs + s * CONFIG_T::n_out, weights2,
                                                                   biases2);
    }
    moe_combine<res_T, CONFIG_T>(gates, outs, res);
}

// Every token of the sample (n_rows rows), each routed and computed on its own.
template <class data_T, class logit_T, class res_T, typename CONFIG_T>
void moe(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows], const logit_T logits[CONFIG_T::n_experts * CONFIG_T::n_rows],
         res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
         const typename CONFIG_T::weight_t weights[CONFIG_T::n_experts * CONFIG_T::n_in * CONFIG_T::n_out],
         const typename CONFIG_T::bias_t biases[CONFIG_T::n_experts * CONFIG_T::n_out],
         const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
         const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        moe_row<data_T, logit_T, res_T, CONFIG_T>(data + row * CONFIG_T::n_in, logits + row * CONFIG_T::n_experts,
                                                  res + row * CONFIG_T::n_out, weights, biases, exp_table, inv_table);
    }
}

// Every token of the sample with FFN experts.
template <class data_T, class logit_T, class res_T, typename CONFIG_T>
void moe_ffn(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows],
             const logit_T logits[CONFIG_T::n_experts * CONFIG_T::n_rows], res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
             const typename CONFIG_T::weight_t weights[CONFIG_T::n_experts * CONFIG_T::n_in * CONFIG_T::n_hidden],
             const typename CONFIG_T::bias_t biases[CONFIG_T::n_experts * CONFIG_T::n_hidden],
             const typename CONFIG_T::weight2_t weights2[CONFIG_T::n_experts * CONFIG_T::n_hidden * CONFIG_T::n_out],
             const typename CONFIG_T::bias2_t biases2[CONFIG_T::n_experts * CONFIG_T::n_out],
             const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
             const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        moe_ffn_row<data_T, logit_T, res_T, CONFIG_T>(data + row * CONFIG_T::n_in, logits + row * CONFIG_T::n_experts,
                                                      res + row * CONFIG_T::n_out, weights, biases, weights2, biases2,
                                                      exp_table, inv_table);
    }
}

} // namespace nnet

#endif
