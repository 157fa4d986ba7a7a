// MoE routers, io_stream. Token choice: one token's n_in logits are one stream element (n_rows of
// them per sample); each goes through the io_parallel kernel's row (nnet_router.h) unchanged, and its
// n_out results leave as one element.
#ifndef NNET_ROUTER_STREAM_H_
#define NNET_ROUTER_STREAM_H_

#include "nnet_router.h"
#include "nnet_router_soft.h"
#include "nnet_stream.h"

namespace nnet {

// With a capacity the tokens of the sample are one group: a token's first choice can be dropped only
// by earlier tokens, but its second by any token's first, so the whole group is read before the
// io_parallel kernel's group routing (nnet_router.h) runs, and the rows then leave one per element.
template <class data_T, class res_T, typename CONFIG_T>
void router_group_stream(stream<data_T> &data, stream<res_T> &res,
                         const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                         const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    typename data_T::value_type logits[CONFIG_T::n_in * CONFIG_T::n_rows];
    typename res_T::value_type results[CONFIG_T::n_out * CONFIG_T::n_rows];
    read_whole<CONFIG_T::n_in * CONFIG_T::n_rows, data_T>(data, logits);
    router_group<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(logits, results, exp_table,
                                                                                    inv_table);
    write_whole<CONFIG_T::n_out * CONFIG_T::n_rows, res_T>(results, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void router(stream<data_T> &data, stream<res_T> &res,
            const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
            const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    static_assert(data_T::size == CONFIG_T::n_in, "router stream: the input must be one element of n_in logits");
    static_assert(res_T::size == CONFIG_T::n_out, "router stream: the result must be one element of n_out values");
    if (CONFIG_T::capacity > 0 || CONFIG_T::sinkhorn_iterations > 0) {
        router_group_stream<data_T, res_T, CONFIG_T>(data, res, exp_table, inv_table);
        return;
    }
    for (unsigned row = 0; row < CONFIG_T::n_rows; row++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        router_row<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data, out.data, exp_table,
                                                                                      inv_table);
        res.write(out);
    }
}

// Expert choice, io_stream: one insertion queue of `capacity` (gate, token) entries per expert (seed-
// layers.md B.6). Tokens arrive one per element; each token's softmax row is computed as it arrives
// and offered to every expert's queue, which keeps its best entries in order: a new entry goes before
// the first entry it beats strictly, so an earlier (lower) token wins ties, as in the io_parallel
// kernel. That is `capacity` comparators per expert instead of a ranking of the group. The rows are
// kept until the group is complete, then each token leaves with the gates of the experts whose queue
// holds it.
template <class gate_T, unsigned Capacity> struct expert_queue {
    gate_T gate[Capacity];
    unsigned token[Capacity];
    unsigned size;

    void offer(const gate_T &candidate, unsigned candidate_token) {
        unsigned position = size;
        for (unsigned slot = size; slot-- > 0;) {
            if (greater_than(candidate, gate[slot]))
                position = slot;
        }
        if (position >= Capacity)
            return;
        const unsigned last = size < Capacity ? size : Capacity - 1;
        for (unsigned slot = last; slot > position; slot--) {
            gate[slot] = gate[slot - 1];
            token[slot] = token[slot - 1];
        }
        gate[position] = candidate;
        token[position] = candidate_token;
        if (size < Capacity)
            size++;
    }

    bool holds(unsigned wanted) const {
        bool found = false;
        for (unsigned slot = 0; slot < size; slot++) {
            found = found || token[slot] == wanted;
        }
        return found;
    }
};

template <class data_T, class res_T, typename CONFIG_T>
void expert_choice(stream<data_T> &data, stream<res_T> &res,
                   const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                   const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    static const unsigned experts = CONFIG_T::n_slice;
    static_assert(data_T::size == experts, "expert_choice stream: one element of n_slice logits per token");
    static_assert(res_T::size == experts, "expert_choice stream: one element of n_slice gates per token");
    typedef typename res_T::value_type gate_t;
    expert_queue<gate_t, CONFIG_T::capacity> queues[experts];
    gate_t gates[CONFIG_T::n_tokens][experts];
    for (unsigned e = 0; e < experts; e++) {
        queues[e].size = 0;
    }
    for (unsigned t = 0; t < CONFIG_T::n_tokens; t++) {
        const data_T in = data.read();
        softmax_row<typename data_T::value_type, gate_t, CONFIG_T, softmax_x_minus_max>(in.data, gates[t], exp_table,
                                                                                     inv_table);
        for (unsigned e = 0; e < experts; e++) {
            queues[e].offer(gates[t][e], t);
        }
    }
    for (unsigned t = 0; t < CONFIG_T::n_tokens; t++) {
        res_T out;
        for (unsigned e = 0; e < experts; e++) {
            if (queues[e].holds(t))
                out[e] = gates[t][e];
            else
                out[e] = 0;
        }
        res.write(out);
    }
}

// Soft expert choice, io_stream: the group is read whole (a token's gates depend on every token of its
// experts' columns), goes through the io_parallel kernel (nnet_router_soft.h), and leaves one token per
// element.
template <class data_T, class res_T, typename CONFIG_T>
void soft_expert_choice(stream<data_T> &data, stream<res_T> &res,
                        const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                        const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size],
                        const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    typename data_T::value_type logits[CONFIG_T::n_in];
    typename res_T::value_type gates[CONFIG_T::n_in];
    read_whole<CONFIG_T::n_in, data_T>(data, logits);
    soft_expert_choice<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(logits, gates, exp_table,
                                                                                          inv_table, recip);
    write_whole<CONFIG_T::n_in, res_T>(gates, res);
}

// The same with p = 4/3 (nnet_softtopk_cubic.h): no reciprocal table.
template <class data_T, class res_T, typename CONFIG_T>
void soft_expert_choice_cubic(stream<data_T> &data, stream<res_T> &res,
                              const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                              const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    typename data_T::value_type logits[CONFIG_T::n_in];
    typename res_T::value_type gates[CONFIG_T::n_in];
    read_whole<CONFIG_T::n_in, data_T>(data, logits);
    soft_expert_choice_cubic<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(logits, gates,
                                                                                                exp_table, inv_table);
    write_whole<CONFIG_T::n_in, res_T>(gates, res);
}

} // namespace nnet

#endif
