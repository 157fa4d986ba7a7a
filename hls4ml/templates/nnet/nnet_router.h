// Token-choice MoE router over n_in expert logits, io_parallel (docs/moe.md, seed-layers.md B.5, B.6).
//
//   gates    res[e] = the gate of expert e if it is among the k chosen, else 0 (n_in values)
//   weights  res[s] = the gate of the (s+1)-th chosen expert (k values)
//   indices  res[s] = the (s+1)-th chosen expert (k values)
//
// Selection is on the raw logits (softmax is monotone): k passes of an argmax comparator tree over
// the experts not chosen yet, n_in - 1 comparators and depth ceil(log2 n_in) per pass, k (n_in - 1)
// in all, instead of a sort. In the tree the left operand always has the lower index and the right
// one wins only when strictly greater, so ties go to the lower index. Gates: e_s = exp_table(r_s -
// r_max) (r_max is the first choice), sum = e over the k chosen in rank order (renormalize: softmax of
// the kept logits, as Mixtral) or over all n_in experts in index order (the softmax probabilities, as
// V-MoE and Switch), gate_s = e_s * inv_table(sum). The tables and their grid are those of the stable
// softmax (nnet_softmax.h, hls4ml/model/tables.py). Writes: e into exp_table_t, the sum into accum_t,
// the gates into res_T.
#ifndef NNET_ROUTER_H_
#define NNET_ROUTER_H_

#include "nnet_common.h"
#include "nnet_softmax.h"
#include "nnet_table.h"
#include "nnet_topk.h"

namespace nnet {

enum router_output { router_gates = 0, router_weights = 1, router_indices = 2 };

struct router_config {
    // Required typedefs: exp_table_t, inv_table_t, exp_index_t, inv_index_t, accum_t.
    static const unsigned n_in = 8; // experts
    static const unsigned k = 2;
    static const unsigned n_out = 8;  // per token: n_in for gates, k for weights and indices
    static const unsigned n_rows = 1; // tokens, one row of n_in logits each (row-major)
    static const bool renormalize = true;
    static const unsigned output = router_gates;
    static const unsigned capacity = 0; // tokens per expert in the sample's group; 0: dropless
    static const unsigned sinkhorn_iterations = 0; // > 0: select on the group's Sinkhorn plan (plan_t, remainder_t)
    static const unsigned plan_fraction = 16;
    static const unsigned table_size = 1024;
    static const int exp_table_shift = 0;
    static const int exp_table_start = 0;
    static const int inv_table_shift = 0;
    static const int inv_table_start = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// One pass: the best expert not taken yet, by a comparator tree; the lower index wins ties.
template <class data_T, typename CONFIG_T>
inline unsigned router_argmax(const data_T data[CONFIG_T::n_in], const bool taken[CONFIG_T::n_in]) {
    NNET_INLINE
    unsigned best[CONFIG_T::n_in];
    bool open[CONFIG_T::n_in]; // best[i] is a candidate (not taken)
    NNET_ARRAY_PARTITION_COMPLETE(best)
    NNET_ARRAY_PARTITION_COMPLETE(open)
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        best[i] = i;
        open[i] = !taken[i];
    }
    NNET_UNROLL
    for (unsigned stride = 1; stride < CONFIG_T::n_in; stride *= 2) {
        NNET_UNROLL
        for (unsigned i = 0; i + stride < CONFIG_T::n_in; i += 2 * stride) {
            const unsigned left = best[i], right = best[i + stride];
            const bool right_wins = open[i + stride] && (!open[i] || greater_than(data[right], data[left]));
            if (right_wins) {
                best[i] = right;
                open[i] = true;
            }
        }
    }
    return best[0];
}

// The k chosen experts in descending logit order.
template <class data_T, typename CONFIG_T>
inline void router_select(const data_T data[CONFIG_T::n_in], unsigned chosen[CONFIG_T::k]) {
    NNET_INLINE
    bool taken[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(taken)
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        taken[i] = false;
    }
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        chosen[s] = router_argmax<data_T, CONFIG_T>(data, taken);
        taken[chosen[s]] = true;
    }
}

// The k gates in rank order.
template <class data_T, class res_T, typename CONFIG_T>
inline void router_gate_values(const data_T data[CONFIG_T::n_in], const unsigned chosen[CONFIG_T::k], res_T gates[CONFIG_T::k],
                           const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                           const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    // r_max of the summed logits: the first choice's, unless the choices come from a Sinkhorn plan
    data_T top = data[chosen[0]];
    if (CONFIG_T::sinkhorn_iterations > 0 && !CONFIG_T::renormalize)
        top = data[first_max_index<data_T, CONFIG_T::n_in>(data)];
    NNET_UNROLL
    for (unsigned s = 1; s < CONFIG_T::k; s++) {
        if (CONFIG_T::sinkhorn_iterations > 0 && CONFIG_T::renormalize && greater_than(data[chosen[s]], top))
            top = data[chosen[s]];
    }
    typename CONFIG_T::exp_table_t kept[CONFIG_T::k];
    NNET_ARRAY_PARTITION_COMPLETE(kept)
    typename CONFIG_T::accum_t sum = 0;
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        kept[s] = softmax_exp<CONFIG_T>(exp_table, data[chosen[s]] - top);
        if (CONFIG_T::renormalize)
            sum += kept[s];
    }
    if (!CONFIG_T::renormalize) {
        NNET_UNROLL
        for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
            const typename CONFIG_T::exp_table_t term = softmax_exp<CONFIG_T>(exp_table, data[i] - top);
            sum += term;
        }
    }
    const typename CONFIG_T::inv_table_t inverse = softmax_inverse<CONFIG_T>(inv_table, sum);
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        gates[s] = kept[s] * inverse;
    }
}

// One token's results from its choices and gates: a choice not kept (capacity) writes a gate of 0.
template <class res_T, typename CONFIG_T>
inline void router_write(const unsigned chosen[CONFIG_T::k], const res_T gates[CONFIG_T::k], const bool kept[CONFIG_T::k],
                         res_T res[CONFIG_T::n_out]) {
    NNET_INLINE
    if (CONFIG_T::output == router_weights) {
        NNET_UNROLL
        for (unsigned s = 0; s < CONFIG_T::k; s++) {
            if (kept[s])
                res[s] = gates[s];
            else
                res[s] = 0;
        }
        return;
    }
    NNET_UNROLL
    for (unsigned e = 0; e < CONFIG_T::n_in; e++) {
        res[e] = 0;
        NNET_UNROLL
        for (unsigned s = 0; s < CONFIG_T::k; s++) {
            if (chosen[s] == e && kept[s])
                res[e] = gates[s];
        }
    }
}

// One token: n_in logits -> n_out results.
template <class data_T, class res_T, typename CONFIG_T>
inline void router_row(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                       const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                       const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    unsigned chosen[CONFIG_T::k];
    NNET_ARRAY_PARTITION_COMPLETE(chosen)
    router_select<data_T, CONFIG_T>(data, chosen);
    if (CONFIG_T::output == router_indices) {
        NNET_UNROLL
        for (unsigned s = 0; s < CONFIG_T::k; s++) {
            res[s] = chosen[s];
        }
        return;
    }
    res_T gates[CONFIG_T::k];
    bool kept[CONFIG_T::k];
    NNET_ARRAY_PARTITION_COMPLETE(gates)
    NNET_ARRAY_PARTITION_COMPLETE(kept)
    router_gate_values<data_T, res_T, CONFIG_T>(data, chosen, gates, exp_table, inv_table);
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        kept[s] = true;
    }
    router_write<res_T, CONFIG_T>(chosen, gates, kept, res);
}

// Capacity (seed-layers.md B.5.4): the choices in priority order, every token's first choice (earlier
// tokens first), then every second choice, ...; a choice is kept when fewer than `capacity` choices
// before it went to its expert (once an expert is full, every later choice of it is dropped, so this
// is the sequential rule). An equality comparator for every pair of choices, no sequential chain.
template <typename CONFIG_T>
inline void router_capacity_kept(const unsigned chosen[CONFIG_T::n_rows * CONFIG_T::k],
                                 bool kept[CONFIG_T::n_rows * CONFIG_T::k]) {
    NNET_INLINE
    static const unsigned choices = CONFIG_T::n_rows * CONFIG_T::k;
    NNET_UNROLL
    for (unsigned c = 0; c < choices; c++) { // c = rank * n_rows + token: the priority order
        const unsigned expert = chosen[(c % CONFIG_T::n_rows) * CONFIG_T::k + c / CONFIG_T::n_rows];
        unsigned before = 0;
        NNET_UNROLL
        for (unsigned b = 0; b < c; b++) {
            before += chosen[(b % CONFIG_T::n_rows) * CONFIG_T::k + b / CONFIG_T::n_rows] == expert ? 1 : 0;
        }
        kept[(c % CONFIG_T::n_rows) * CONFIG_T::k + c / CONFIG_T::n_rows] = CONFIG_T::capacity == 0 || before < CONFIG_T::capacity;
    }
}

// Sinkhorn balancing (seed-layers.md B.5.7, hls4ml/model/reference/sinkhorn.py): plan = exp_table(r -
// r_max) per token, then sinkhorn_iterations times every row, then every column, divided by its exact
// sum (restoring division, the quotient floor(value / sum) at plan_t's LSB; a sum of 0 leaves zeros).
// Columns are normalised to 1, not n/E: a uniform factor changes no later division and no ordering.
template <typename CONFIG_T, unsigned Lines, unsigned Length, unsigned LineStride, unsigned Stride>
inline void router_sinkhorn_normalise(typename CONFIG_T::plan_t plan[CONFIG_T::n_in * CONFIG_T::n_rows]) {
    NNET_INLINE
    typedef typename CONFIG_T::remainder_t remainder_t;
    NNET_UNROLL
    for (unsigned line = 0; line < Lines; line++) {
        remainder_t sum = 0;
        NNET_UNROLL
        for (unsigned i = 0; i < Length; i++) {
            sum += plan[line * LineStride + i * Stride];
        }
        NNET_UNROLL
        for (unsigned i = 0; i < Length; i++) {
            const remainder_t value = plan[line * LineStride + i * Stride];
            if (sum == 0)
                plan[line * LineStride + i * Stride] = 0;
            else
                plan[line * LineStride + i * Stride] =
                    exact_divide<typename CONFIG_T::plan_t, remainder_t, CONFIG_T::plan_fraction>(value, sum);
        }
    }
}

template <class data_T, typename CONFIG_T>
inline void router_sinkhorn(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows],
                            typename CONFIG_T::plan_t plan[CONFIG_T::n_in * CONFIG_T::n_rows],
                            const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size]) {
    NNET_INLINE
    static const unsigned n = CONFIG_T::n_in, rows = CONFIG_T::n_rows;
    NNET_UNROLL
    for (unsigned row = 0; row < rows; row++) {
        const data_T top = data[row * n + first_max_index<data_T, n>(data + row * n)];
        NNET_UNROLL
        for (unsigned e = 0; e < n; e++) {
            plan[row * n + e] = softmax_exp<CONFIG_T>(exp_table, data[row * n + e] - top);
        }
    }
    NNET_UNROLL
    for (unsigned iteration = 0; iteration < CONFIG_T::sinkhorn_iterations; iteration++) {
        router_sinkhorn_normalise<CONFIG_T, rows, n, n, 1>(plan); // rows
        router_sinkhorn_normalise<CONFIG_T, n, rows, 1, n>(plan); // columns
    }
}

// Every token's k choices: on its logits, or on the group's Sinkhorn plan (only then are plan_t and
// remainder_t required).
template <bool Sinkhorn> struct router_choices {
    template <class data_T, typename CONFIG_T>
    static void choose(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows], unsigned chosen[CONFIG_T::n_rows * CONFIG_T::k],
                       const typename CONFIG_T::exp_table_t *) {
        NNET_INLINE
        NNET_UNROLL
        for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
            router_select<data_T, CONFIG_T>(data + row * CONFIG_T::n_in, chosen + row * CONFIG_T::k);
        }
    }
};

template <> struct router_choices<true> {
    template <class data_T, typename CONFIG_T>
    static void choose(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows], unsigned chosen[CONFIG_T::n_rows * CONFIG_T::k],
                       const typename CONFIG_T::exp_table_t *exp_table) {
        NNET_INLINE
        typename CONFIG_T::plan_t plan[CONFIG_T::n_in * CONFIG_T::n_rows];
        NNET_ARRAY_PARTITION_COMPLETE(plan)
        router_sinkhorn<data_T, CONFIG_T>(data, plan, exp_table);
        NNET_UNROLL
        for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
            router_select<typename CONFIG_T::plan_t, CONFIG_T>(plan + row * CONFIG_T::n_in, chosen + row * CONFIG_T::k);
        }
    }
};

// The sample's tokens as one group with a capacity per expert: every row's choices and gates, the
// capacity test over the group, then every row's results.
template <class data_T, class res_T, typename CONFIG_T>
void router_group(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows], res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
                  const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                  const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    unsigned chosen[CONFIG_T::n_rows * CONFIG_T::k];
    res_T gates[CONFIG_T::n_rows * CONFIG_T::k];
    bool kept[CONFIG_T::n_rows * CONFIG_T::k];
    NNET_ARRAY_PARTITION_COMPLETE(chosen)
    NNET_ARRAY_PARTITION_COMPLETE(gates)
    NNET_ARRAY_PARTITION_COMPLETE(kept)
    router_choices<(CONFIG_T::sinkhorn_iterations > 0)>::template choose<data_T, CONFIG_T>(data, chosen, exp_table);
    if (CONFIG_T::output == router_indices) { // Sinkhorn without capacity (a capacity needs the gates)
        NNET_UNROLL
        for (unsigned c = 0; c < CONFIG_T::n_rows * CONFIG_T::k; c++) {
            res[c] = chosen[c];
        }
        return;
    }
    NNET_UNROLL
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        router_gate_values<data_T, res_T, CONFIG_T>(data + row * CONFIG_T::n_in, chosen + row * CONFIG_T::k,
                                                    gates + row * CONFIG_T::k, exp_table, inv_table);
    }
    router_capacity_kept<CONFIG_T>(chosen, kept);
    NNET_UNROLL
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        router_write<res_T, CONFIG_T>(chosen + row * CONFIG_T::k, gates + row * CONFIG_T::k, kept + row * CONFIG_T::k,
                                      res + row * CONFIG_T::n_out);
    }
}

// Every token of the sample (n_rows rows of n_in logits), each routed on its own, in one pipeline.
template <class data_T, class res_T, typename CONFIG_T>
void router(const data_T data[CONFIG_T::n_in * CONFIG_T::n_rows], res_T res[CONFIG_T::n_out * CONFIG_T::n_rows],
            const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
            const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    if (CONFIG_T::capacity > 0 || CONFIG_T::sinkhorn_iterations > 0) {
        router_group<data_T, res_T, CONFIG_T>(data, res, exp_table, inv_table);
        return;
    }
    NNET_UNROLL
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        router_row<data_T, res_T, CONFIG_T>(data + row * CONFIG_T::n_in, res + row * CONFIG_T::n_out, exp_table,
                                            inv_table);
    }
}

// ---- expert choice -------------------------------------------------------------------------------
//
// A group of n_tokens tokens, each a row of n_slice expert logits (data[n_in], row-major): P = the
// stable softmax of each row (nnet::softmax_stable, written into res_T); each expert keeps the P of
// its `capacity` best tokens and writes 0 for the others. An expert's ranking is the all-pairs rank of
// its column (nnet_topk.h: the lower token index wins ties), n_tokens (n_tokens - 1) / 2 comparators
// per expert. The io_stream kernel (nnet_router_stream.h) keeps one insertion queue per expert instead.
struct expert_choice_config : softmax_config {
    static const unsigned n_tokens = 6;
    static const unsigned capacity = 2;
};

template <typename CONFIG_T> struct expert_choice_column {
    static const unsigned n_in = CONFIG_T::n_tokens;
    static const bool magnitude = false;
    static const bool largest = true;
};

template <class data_T, class res_T, typename CONFIG_T>
void expert_choice(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                   const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                   const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static const unsigned experts = CONFIG_T::n_slice;
    res_T probabilities[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(probabilities)
    softmax_stable<data_T, res_T, CONFIG_T>(data, probabilities, exp_table, inv_table);
    NNET_UNROLL
    for (unsigned e = 0; e < experts; e++) {
        res_T column[CONFIG_T::n_tokens];
        unsigned rank[CONFIG_T::n_tokens];
        NNET_ARRAY_PARTITION_COMPLETE(column)
        NNET_ARRAY_PARTITION_COMPLETE(rank)
        NNET_UNROLL
        for (unsigned t = 0; t < CONFIG_T::n_tokens; t++) {
            column[t] = probabilities[t * experts + e];
        }
        topk_ranks<res_T, expert_choice_column<CONFIG_T>>(column, rank);
        NNET_UNROLL
        for (unsigned t = 0; t < CONFIG_T::n_tokens; t++) {
            if (rank[t] < CONFIG_T::capacity)
                res[t * experts + e] = column[t];
            else
                res[t * experts + e] = 0;
        }
    }
}

} // namespace nnet

#endif
