// Sparse-soft-top-k MoE router, token choice, io_parallel (docs/moe.md, seed-layers.md B.5.8).
//
//   gates     res[e] = m_e e_e / sum_kept(m e)  (renormalize)  or  m_e p_e  (no renormalisation), 0 if not kept
//   overflow  res[0] = |supp m| - |kept|: the experts the k_max bound dropped
//
// Per token (a row of n_in expert logits r): e_i = exp_table(r_i - r_max) (the stable softmax's table),
// p_i = e_i inv_table(sum e) when the mask or the gates read p; m = the soft top-k mask (strength l) of r or
// of p (`mask_on`): p = 2 by nnet_softtopk.h (`soft_router`), p = 4/3 by nnet_softtopk_cubic.h
// (`soft_router_cubic`, no reciprocal table); an expert is kept when m > 0 and its key is among the k_max
// best (all-pairs ranks, ties to the lower index: m is order-preserving in the keys, so these are the
// k_max largest m). The renormalised gates divide by sum_kept(m e) with a reciprocal table (norm_table)
// over [k / (2 n_in), k + 1): the largest key has e = 1 and m >= k / n_in. Without renormalisation the
// gates are m p and k_max = n_in (the frontends refuse less). Writes: e into exp_table_t, sum e into
// accum_t, p into prob_t, the mask into mask_t, m e and its sum into weight_t (exact), the gates into
// res_T. Twin: hls4ml/model/reference/soft_router.py.
#ifndef NNET_ROUTER_SOFT_H_
#define NNET_ROUTER_SOFT_H_

#include "nnet_common.h"
#include "nnet_router.h" // expert_choice_config
#include "nnet_softmax.h"
#include "nnet_softtopk.h"
#include "nnet_softtopk_cubic.h"
#include "nnet_table.h"
#include "nnet_topk.h"

namespace nnet {

enum soft_router_output { soft_router_gates = 0, soft_router_overflow = 1 };
enum soft_router_keys { soft_router_logits = 0, soft_router_probabilities = 1 };

struct soft_router_config : soft_topk_config {
    // Required typedefs besides soft_topk_config's: exp_table_t, inv_table_t, norm_table_t, exp_index_t,
    // inv_index_t, norm_index_t, accum_t, mask_t, prob_t, weight_t.
    static const unsigned k_max = 4;
    static const unsigned n_out = 8;  // per token: n_in gates, or 1 overflow count
    static const unsigned n_rows = 1; // tokens, one row of n_in logits each (row-major)
    static const unsigned mask_on = soft_router_logits;
    static const bool renormalize = true;
    static const unsigned output = soft_router_gates;
    static const unsigned table_size = 1024;
    static const int exp_table_shift = 0;
    static const int exp_table_start = 0;
    static const int inv_table_shift = 0;
    static const int inv_table_start = 0;
    static const int norm_table_shift = 0;
    static const int norm_table_start = 0;
};

// The soft top-k mask of CONFIG_T::n_in keys by the kernel of p: soft_topk (p = 2) reads its reciprocal
// table `recip`; soft_topk_cubic (p = 4/3, `cubic`) reads none, so its callers pass a null `recip`.
template <bool cubic> struct soft_mask_kernel {
    template <class key_T, class mask_T, typename CONFIG_T, class recip_T>
    static void apply(const key_T keys[CONFIG_T::n_in], mask_T mask[CONFIG_T::n_in], const recip_T *recip) {
        NNET_INLINE
        soft_topk<key_T, mask_T, CONFIG_T>(keys, mask, recip);
    }
};

template <> struct soft_mask_kernel<true> {
    template <class key_T, class mask_T, typename CONFIG_T, class recip_T>
    static void apply(const key_T keys[CONFIG_T::n_in], mask_T mask[CONFIG_T::n_in], const recip_T *) {
        NNET_INLINE
        soft_topk_cubic<key_T, mask_T, CONFIG_T>(keys, mask);
    }
};

// The soft top-k mask of the keys and the keys' ranks (how many keys beat each one).
template <class key_T, typename CONFIG_T, bool cubic, class recip_T>
inline void soft_router_mask(const key_T keys[CONFIG_T::n_in], typename CONFIG_T::mask_t mask[CONFIG_T::n_in],
                             unsigned rank[CONFIG_T::n_in], const recip_T *recip) {
    NNET_INLINE
    soft_mask_kernel<cubic>::template apply<key_T, typename CONFIG_T::mask_t, CONFIG_T>(keys, mask, recip);
    topk_ranks<key_T, CONFIG_T>(keys, rank);
}

// p_i = e_i / sum e, the division a product with the stable softmax's reciprocal table entry.
template <typename CONFIG_T>
inline void soft_router_softmax(const typename CONFIG_T::exp_table_t exponentials[CONFIG_T::n_in],
                                      typename CONFIG_T::prob_t probabilities[CONFIG_T::n_in],
                                      const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    typename CONFIG_T::accum_t sum = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        sum += exponentials[i];
    }
    const typename CONFIG_T::inv_table_t inverse = softmax_inverse<CONFIG_T>(inv_table, sum);
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        probabilities[i] = exponentials[i] * inverse;
    }
}

// The renormalised gates of the kept experts: m e / sum_kept(m e).
template <class res_T, typename CONFIG_T>
inline void soft_router_renormalized(const typename CONFIG_T::mask_t mask[CONFIG_T::n_in],
                                     const typename CONFIG_T::exp_table_t exponentials[CONFIG_T::n_in],
                                     const bool kept[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                                     const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size]) {
    NNET_INLINE
    typename CONFIG_T::weight_t weights[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(weights)
    typename CONFIG_T::weight_t sum = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        if (kept[i])
            weights[i] = mask[i] * exponentials[i];
        else
            weights[i] = 0;
        sum += weights[i];
    }
    typedef typename CONFIG_T::norm_index_t index_t;
    const int slot = table_slot<index_t, CONFIG_T::norm_table_shift, CONFIG_T::norm_table_start>(sum);
    const typename CONFIG_T::norm_table_t inverse = norm_table[clamp_slot<CONFIG_T::table_size>(slot)];
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        if (kept[i])
            res[i] = weights[i] * inverse;
        else
            res[i] = 0;
    }
}

// The gates, or the overflow count, of one token from its mask, ranks and exponentials.
template <class res_T, typename CONFIG_T>
inline void soft_router_outputs(const typename CONFIG_T::mask_t mask[CONFIG_T::n_in], const unsigned rank[CONFIG_T::n_in],
                                const typename CONFIG_T::exp_table_t exponentials[CONFIG_T::n_in],
                                const typename CONFIG_T::prob_t probabilities[CONFIG_T::n_in],
                                res_T res[CONFIG_T::n_out],
                                const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size]) {
    NNET_INLINE
    bool kept[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(kept)
    unsigned dropped = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        const bool support = mask[i] != 0;
        kept[i] = support && rank[i] < CONFIG_T::k_max;
        dropped += (support && !kept[i]) ? 1 : 0;
    }
    if (CONFIG_T::output == soft_router_overflow) {
        res[0] = dropped;
        return;
    }
    if (CONFIG_T::renormalize) {
        soft_router_renormalized<res_T, CONFIG_T>(mask, exponentials, kept, res, norm_table);
        return;
    }
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        if (kept[i])
            res[i] = mask[i] * probabilities[i];
        else
            res[i] = 0;
    }
}

// One token: n_in logits -> n_out results; the mask by soft_mask_kernel<cubic>.
template <class data_T, class res_T, typename CONFIG_T, bool cubic, class recip_T>
inline void soft_router_row(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                            const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                            const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                            const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size],
                            const recip_T *recip) {
    NNET_INLINE
    typename CONFIG_T::exp_table_t exponentials[CONFIG_T::n_in];
    typename CONFIG_T::prob_t probabilities[CONFIG_T::n_in];
    typename CONFIG_T::mask_t mask[CONFIG_T::n_in];
    unsigned rank[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(exponentials)
    NNET_ARRAY_PARTITION_COMPLETE(probabilities)
    NNET_ARRAY_PARTITION_COMPLETE(mask)
    NNET_ARRAY_PARTITION_COMPLETE(rank)
    const data_T top = data[first_max_index<data_T, CONFIG_T::n_in>(data)];
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        exponentials[i] = softmax_exp<CONFIG_T>(exp_table, data[i] - top);
        probabilities[i] = 0;
    }
    if (CONFIG_T::mask_on == soft_router_probabilities || !CONFIG_T::renormalize)
        soft_router_softmax<CONFIG_T>(exponentials, probabilities, inv_table);
    if (CONFIG_T::mask_on == soft_router_probabilities)
        soft_router_mask<typename CONFIG_T::prob_t, CONFIG_T, cubic>(probabilities, mask, rank, recip);
    else
        soft_router_mask<data_T, CONFIG_T, cubic>(data, mask, rank, recip);
    soft_router_outputs<res_T, CONFIG_T>(mask, rank, exponentials, probabilities, res, norm_table);
}

// Every token of the sample (n_rows rows of n_in logits), each routed on its own, in one pipeline.
template <class data_T, class res_T, typename CONFIG_T, bool cubic, class recip_T>
inline void soft_router_rows(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows],
                             res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
                             const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                             const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                             const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size],
                             const recip_T *recip) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        soft_router_row<data_T, res_T, CONFIG_T, cubic>(data + row * CONFIG_T::n_in, res + row * CONFIG_T::n_out,
                                                        exp_table, inv_table, norm_table, recip);
    }
}

// p = 2: the mask by nnet_softtopk.h and its reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_router(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows], res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
                 const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                 const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                 const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size],
                 const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    soft_router_rows<data_T, res_T, CONFIG_T, false>(data, res, exp_table, inv_table, norm_table, recip);
}

// p = 4/3: the mask by nnet_softtopk_cubic.h (the config carries its types and inv_l), no reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_router_cubic(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows],
                       res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
                       const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                       const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                       const typename CONFIG_T::norm_table_t norm_table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    const bool *no_table = 0;
    soft_router_rows<data_T, res_T, CONFIG_T, true>(data, res, exp_table, inv_table, norm_table, no_table);
}

// ---- soft expert choice ----------------------------------------------------------------------------
//
// A group of n_tokens tokens, each a row of n_slice expert logits (data[n_in], row-major): P = the stable
// softmax of each row (written into res_T), then for each expert the soft top-k mask M (p = 2, or 4/3 in
// soft_expert_choice_cubic; strength l, k = capacity) of its column of P over the tokens, and gates M * P (written into res_T). The soft top-k
// config is the layer's with n_in = n_tokens and k = capacity. Twin: reference/soft_router.py.
template <typename CONFIG_T> struct soft_expert_column : CONFIG_T {
    static const unsigned n_in = CONFIG_T::n_tokens;
    static const unsigned k = CONFIG_T::capacity;
    static const bool magnitude = false;
    static const bool largest = true;
};

template <class data_T, class res_T, typename CONFIG_T, bool cubic, class recip_T>
inline void soft_expert_choice_group(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                                     const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                                     const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                                     const recip_T *recip) {
    NNET_INLINE
    typedef soft_expert_column<CONFIG_T> column_config;
    static const unsigned experts = CONFIG_T::n_slice;
    res_T probabilities[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(probabilities)
    softmax_stable<data_T, res_T, CONFIG_T>(data, probabilities, exp_table, inv_table);
    NNET_UNROLL
    for (unsigned e = 0; e < experts; e++) {
        res_T column[CONFIG_T::n_tokens];
        typename CONFIG_T::mask_t mask[CONFIG_T::n_tokens];
        NNET_ARRAY_PARTITION_COMPLETE(column)
        NNET_ARRAY_PARTITION_COMPLETE(mask)
        NNET_UNROLL
        for (unsigned t = 0; t < CONFIG_T::n_tokens; t++) {
            column[t] = probabilities[t * experts + e];
        }
        soft_mask_kernel<cubic>::template apply<res_T, typename CONFIG_T::mask_t, column_config>(column, mask, recip);
        NNET_UNROLL
        for (unsigned t = 0; t < CONFIG_T::n_tokens; t++) {
            res[t * experts + e] = mask[t] * column[t];
        }
    }
}

// p = 2: the columns' masks by nnet_softtopk.h and its reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_expert_choice(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                        const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                        const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                        const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    soft_expert_choice_group<data_T, res_T, CONFIG_T, false>(data, res, exp_table, inv_table, recip);
}

// p = 4/3: the columns' masks by nnet_softtopk_cubic.h, no reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_expert_choice_cubic(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                              const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                              const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    const bool *no_table = 0;
    soft_expert_choice_group<data_T, res_T, CONFIG_T, true>(data, res, exp_table, inv_table, no_table);
}

} // namespace nnet

#endif
