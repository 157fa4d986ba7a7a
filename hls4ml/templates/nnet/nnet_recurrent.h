// Recurrent layers for io_parallel: SimpleRNN, LSTM, GRU over n_steps time steps of n_features values.
//
// Arithmetic (bit for bit; numpy twin: hls4ml/model/reference/recurrent.py). Each step computes two
// matrix products with nnet::dense, both written into accum_t: the input part x_t W + b (reuse_factor)
// and the state part h U + rb (recurrent_reuse_factor); the gates are in Keras' order (LSTM i f c o,
// GRU z r h), W is [n_features][n_gates * n_state] and U [n_state][n_gates * n_state], row-major.
//   SimpleRNN: h = act(accum_t(x W + b + h U + rb))
//   LSTM:      i, f, o = rec(pre); g = act(pre_c); c = cell_t(f c + i g); h = state_t(o cell_act(c))
//   GRU:       z, r = rec(pre); n = act(candidate); h = state_t(z h + n - z n), with the candidate
//              x W_h + b_h + r (h U_h + rb_h) (reset_after) or x W_h + b_h + state_t(r h) U_h + rb_h,
//              where U holds U_zr [n_state][2 n_state] and then U_h [n_state][n_state].
// A gate function is linear, relu or a bounded table (nnet_table.h); its value is written into its
// table type (<prefix>table_t), which the lowering sets to the input's type for linear and relu.
// The state starts at zero on every call.
//
// Implementations: static_cell (hls4ml's `static`): one cell instance walks the steps in a loop and keeps
// the state in NNET_PERSISTENT storage, reset at the first step of each call (thread-local in the
// C-simulation library); otherwise the steps are unrolled, each with its own cell and state registers.
// Both perform the same writes in the same order.
#ifndef NNET_RECURRENT_H_
#define NNET_RECURRENT_H_

#include "nnet_common.h"
#include "nnet_dense.h"
#include "nnet_table.h"

namespace nnet {

enum recurrent_function {
    recurrent_linear = 0,
    recurrent_relu = 1,
    recurrent_sigmoid = 2,
    recurrent_tanh = 3,
    recurrent_softsign = 4
};

struct recurrent_config {
    // Required typedefs: accum_t, weight_t, recurrent_weight_t, bias_t, recurrent_bias_t, state_t,
    // cell_t; per gate function (prefixes act_, rec_, cell_): <prefix>table_t, <prefix>index_t.
    static const unsigned n_in = 10; // n_steps * n_features
    static const unsigned n_steps = 1;
    static const unsigned n_features = 10;
    static const unsigned n_state = 8;
    static const unsigned n_gates = 1;
    static const bool return_sequences = false;
    static const bool output_cell = false; // LSTM: the output is the last c instead of the last h
    static const bool initial_state = false; // h (and c) start from the h0 (c0) inputs instead of zeros
    static const bool backward = false; // walk the steps from the last to the first
    static const bool aligned = false;  // a backward sequence output keeps the input positions
    static const bool reset_after = true;
    static const bool static_cell = true;
    static const unsigned activation = recurrent_tanh;
    static const unsigned recurrent_activation = recurrent_sigmoid;
    static const unsigned io_type = io_parallel;
    static const unsigned strategy = latency;
    static const unsigned reuse_factor = 1;
    static const unsigned recurrent_reuse_factor = 1;
    static const unsigned table_size = 1024;
};

// The limits a bounded table function takes below and above its table.
template <unsigned Function> struct gate_limits {
    static const int below = 0;
    static const int above = 1;
};
template <> struct gate_limits<recurrent_tanh> {
    static const int below = -1;
    static const int above = 1;
};
template <> struct gate_limits<recurrent_softsign> {
    static const int below = -1;
    static const int above = 1;
};

// One gate function; table_T is where its value is written.
template <unsigned Function, class table_T, class index_T, int Shift, int Start, unsigned Size> struct gate_function {
    const table_T *table;
    template <class data_T> table_T operator()(const data_T &x) const {
        table_T value = 0;
        if (Function == recurrent_linear) {
            value = x;
        } else if (Function == recurrent_relu) {
            if (is_positive(x))
                value = x;
        } else {
            const int slot = table_slot<index_T, Shift, Start>(x);
            value = gate_limits<Function>::below;
            if (slot >= int(Size))
                value = gate_limits<Function>::above;
            else if (slot >= 0)
                value = table[slot];
        }
        return value;
    }
};

template <class CONFIG_T>
using activation_of = gate_function<CONFIG_T::activation, typename CONFIG_T::act_table_t, typename CONFIG_T::act_index_t,
                                    CONFIG_T::act_table_shift, CONFIG_T::act_table_start, CONFIG_T::table_size>;
template <class CONFIG_T>
using recurrent_activation_of =
    gate_function<CONFIG_T::recurrent_activation, typename CONFIG_T::rec_table_t, typename CONFIG_T::rec_index_t,
                  CONFIG_T::rec_table_shift, CONFIG_T::rec_table_start, CONFIG_T::table_size>;
template <class CONFIG_T>
using cell_activation_of = gate_function<CONFIG_T::activation, typename CONFIG_T::cell_table_t, typename CONFIG_T::cell_index_t,
                                         CONFIG_T::cell_table_shift, CONFIG_T::cell_table_start, CONFIG_T::table_size>;

// The dense configurations of the two products of a step (rows x columns of a weight matrix).
template <class CONFIG_T, unsigned Rows, unsigned Columns> struct input_product : dense_config {
    typedef typename CONFIG_T::accum_t accum_t;
    typedef typename CONFIG_T::weight_t weight_t;
    typedef typename CONFIG_T::bias_t bias_t;
    static const unsigned n_in = Rows;
    static const unsigned n_out = Columns;
    static const unsigned strategy = CONFIG_T::strategy;
    static const unsigned reuse_factor = CONFIG_T::reuse_factor;
};

template <class CONFIG_T, unsigned Rows, unsigned Columns> struct state_product : dense_config {
    typedef typename CONFIG_T::accum_t accum_t;
    typedef typename CONFIG_T::recurrent_weight_t weight_t;
    typedef typename CONFIG_T::recurrent_bias_t bias_t;
    static const unsigned n_in = Rows;
    static const unsigned n_out = Columns;
    static const unsigned strategy = CONFIG_T::strategy;
    static const unsigned reuse_factor = CONFIG_T::recurrent_reuse_factor;
};

// Everything a cell reads besides the input and the state: weights, biases and tables.
template <class CONFIG_T> struct recurrent_weights {
    const typename CONFIG_T::weight_t *kernel;
    const typename CONFIG_T::recurrent_weight_t *recurrent;
    const typename CONFIG_T::bias_t *bias;
    const typename CONFIG_T::recurrent_bias_t *recurrent_bias;
    const typename CONFIG_T::act_table_t *act_table;
    const typename CONFIG_T::rec_table_t *rec_table;
    const typename CONFIG_T::cell_table_t *cell_table;
};

// The gate sums of a step, x W + b and h U + rb, each written into accum_t.
template <class data_T, class CONFIG_T, unsigned Gates>
inline void step_products(const data_T *x, const typename CONFIG_T::state_t h[CONFIG_T::n_state],
                          const recurrent_weights<CONFIG_T> &weights,
                          typename CONFIG_T::accum_t from_input[Gates * CONFIG_T::n_state],
                          typename CONFIG_T::accum_t from_state[Gates * CONFIG_T::n_state]) {
    NNET_INLINE
    constexpr unsigned columns = Gates * CONFIG_T::n_state;
    dense<data_T, typename CONFIG_T::accum_t, input_product<CONFIG_T, CONFIG_T::n_features, columns>>(
        x, from_input, weights.kernel, weights.bias);
    dense<typename CONFIG_T::state_t, typename CONFIG_T::accum_t, state_product<CONFIG_T, CONFIG_T::n_state, columns>>(
        h, from_state, weights.recurrent, weights.recurrent_bias);
}

// ---- the cells: one step, the state updated in place ---------------------------------------------------

template <class CONFIG_T> struct simple_rnn_cell {
    static const unsigned n_cell = 0; // no cell state
    template <class data_T>
    static void step(const data_T *x, typename CONFIG_T::state_t h[CONFIG_T::n_state], typename CONFIG_T::cell_t *,
                     const recurrent_weights<CONFIG_T> &weights) {
        typename CONFIG_T::accum_t from_input[CONFIG_T::n_state], from_state[CONFIG_T::n_state];
        step_products<data_T, CONFIG_T, 1>(x, h, weights, from_input, from_state);
        const activation_of<CONFIG_T> activation{weights.act_table};
        NNET_UNROLL
        for (unsigned j = 0; j < CONFIG_T::n_state; j++) {
            const typename CONFIG_T::accum_t sum = from_input[j] + from_state[j];
            h[j] = activation(sum);
        }
    }
};

template <class CONFIG_T> struct lstm_cell {
    static const unsigned n_cell = CONFIG_T::n_state;
    template <class data_T>
    static void step(const data_T *x, typename CONFIG_T::state_t h[CONFIG_T::n_state], typename CONFIG_T::cell_t *c,
                     const recurrent_weights<CONFIG_T> &weights) {
        constexpr unsigned n = CONFIG_T::n_state;
        typename CONFIG_T::accum_t from_input[4 * n], from_state[4 * n], sum[4 * n];
        step_products<data_T, CONFIG_T, 4>(x, h, weights, from_input, from_state);
        NNET_UNROLL
        for (unsigned k = 0; k < 4 * n; k++)
            sum[k] = from_input[k] + from_state[k];
        const activation_of<CONFIG_T> activation{weights.act_table};
        const recurrent_activation_of<CONFIG_T> recurrent{weights.rec_table};
        const cell_activation_of<CONFIG_T> cell_activation{weights.cell_table};
        NNET_UNROLL
        for (unsigned j = 0; j < n; j++) {
            const typename CONFIG_T::rec_table_t input_gate = recurrent(sum[j]);
            const typename CONFIG_T::rec_table_t forget_gate = recurrent(sum[n + j]);
            const typename CONFIG_T::act_table_t candidate = activation(sum[2 * n + j]);
            const typename CONFIG_T::rec_table_t output_gate = recurrent(sum[3 * n + j]);
            c[j] = forget_gate * c[j] + input_gate * candidate;
            h[j] = output_gate * cell_activation(c[j]);
        }
    }
};

template <class CONFIG_T> struct gru_cell {
    static const unsigned n_cell = 0;
    template <class data_T>
    static void step(const data_T *x, typename CONFIG_T::state_t h[CONFIG_T::n_state], typename CONFIG_T::cell_t *,
                     const recurrent_weights<CONFIG_T> &weights) {
        constexpr unsigned n = CONFIG_T::n_state;
        typename CONFIG_T::accum_t from_input[3 * n], zr_sum[2 * n], candidate_sum[n];
        dense<data_T, typename CONFIG_T::accum_t, input_product<CONFIG_T, CONFIG_T::n_features, 3 * n>>(
            x, from_input, weights.kernel, weights.bias);
        const recurrent_activation_of<CONFIG_T> recurrent{weights.rec_table};
        if (CONFIG_T::reset_after)
            reset_after_sums(h, weights, recurrent, from_input, zr_sum, candidate_sum);
        else
            reset_before_sums(h, weights, recurrent, from_input, zr_sum, candidate_sum);
        const activation_of<CONFIG_T> activation{weights.act_table};
        NNET_UNROLL
        for (unsigned j = 0; j < n; j++) {
            const typename CONFIG_T::rec_table_t update = recurrent(zr_sum[j]);
            const typename CONFIG_T::act_table_t candidate = activation(candidate_sum[j]);
            h[j] = update * h[j] + candidate - update * candidate;
        }
    }

    // candidate = x W_h + b_h + r (h U_h + rb_h)
    static void reset_after_sums(const typename CONFIG_T::state_t h[CONFIG_T::n_state],
                                 const recurrent_weights<CONFIG_T> &weights,
                                 const recurrent_activation_of<CONFIG_T> &recurrent,
                                 const typename CONFIG_T::accum_t from_input[3 * CONFIG_T::n_state],
                                 typename CONFIG_T::accum_t zr_sum[2 * CONFIG_T::n_state],
                                 typename CONFIG_T::accum_t candidate_sum[CONFIG_T::n_state]) {
        NNET_INLINE
        constexpr unsigned n = CONFIG_T::n_state;
        typename CONFIG_T::accum_t from_state[3 * n];
        dense<typename CONFIG_T::state_t, typename CONFIG_T::accum_t, state_product<CONFIG_T, n, 3 * n>>(
            h, from_state, weights.recurrent, weights.recurrent_bias);
        NNET_UNROLL
        for (unsigned k = 0; k < 2 * n; k++)
            zr_sum[k] = from_input[k] + from_state[k];
        NNET_UNROLL
        for (unsigned j = 0; j < n; j++) {
            const typename CONFIG_T::rec_table_t reset = recurrent(zr_sum[n + j]);
            candidate_sum[j] = from_input[2 * n + j] + reset * from_state[2 * n + j];
        }
    }

    // candidate = x W_h + b_h + state_t(r h) U_h + rb_h
    static void reset_before_sums(const typename CONFIG_T::state_t h[CONFIG_T::n_state],
                                  const recurrent_weights<CONFIG_T> &weights,
                                  const recurrent_activation_of<CONFIG_T> &recurrent,
                                  const typename CONFIG_T::accum_t from_input[3 * CONFIG_T::n_state],
                                  typename CONFIG_T::accum_t zr_sum[2 * CONFIG_T::n_state],
                                  typename CONFIG_T::accum_t candidate_sum[CONFIG_T::n_state]) {
        NNET_INLINE
        constexpr unsigned n = CONFIG_T::n_state;
        typename CONFIG_T::accum_t from_state[2 * n], from_reset[n];
        typename CONFIG_T::state_t reset_state[n];
        dense<typename CONFIG_T::state_t, typename CONFIG_T::accum_t, state_product<CONFIG_T, n, 2 * n>>(
            h, from_state, weights.recurrent, weights.recurrent_bias);
        NNET_UNROLL
        for (unsigned j = 0; j < 2 * n; j++)
            zr_sum[j] = from_input[j] + from_state[j];
        NNET_UNROLL
        for (unsigned j = 0; j < n; j++)
            reset_state[j] = recurrent(zr_sum[n + j]) * h[j];
        dense<typename CONFIG_T::state_t, typename CONFIG_T::accum_t, state_product<CONFIG_T, n, n>>(
            reset_state, from_reset, weights.recurrent + 2 * n * n, weights.recurrent_bias + 2 * n);
        NNET_UNROLL
        for (unsigned j = 0; j < n; j++)
            candidate_sum[j] = from_input[2 * n + j] + from_reset[j];
    }
};

// ---- walking the steps ----------------------------------------------------------------------------------

// The step processed at `position` (its input slot), and where its h goes in a sequence output.
template <class CONFIG_T> inline unsigned step_of(unsigned position) {
    return CONFIG_T::backward ? CONFIG_T::n_steps - 1 - position : position;
}
template <class CONFIG_T> inline unsigned output_slot(unsigned position) {
    return CONFIG_T::aligned ? step_of<CONFIG_T>(position) : position;
}

template <class res_T, class CONFIG_T>
inline void emit_state(const typename CONFIG_T::state_t h[CONFIG_T::n_state], res_T *res) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_state; j++)
        res[j] = h[j];
}

// The output of a layer without return_sequences: the last h, or the last c (LSTM `output_cell`).
template <class res_T, class CONFIG_T>
inline void emit_last(const typename CONFIG_T::state_t h[CONFIG_T::n_state], const typename CONFIG_T::cell_t *c,
                      res_T *res) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_state; j++) {
        if (CONFIG_T::output_cell)
            res[j] = c[j];
        else
            res[j] = h[j];
    }
}

// One step on the state `h`, `c` of the caller (non-static: each unrolled step its own cell).
template <class CELL_T, class data_T, class res_T, typename CONFIG_T>
inline void recurrent_step(const data_T data[CONFIG_T::n_in], res_T *res, unsigned position,
                           typename CONFIG_T::state_t h[CONFIG_T::n_state], typename CONFIG_T::cell_t *c,
                           const recurrent_weights<CONFIG_T> &weights) {
    NNET_INLINE
    CELL_T::step(data + step_of<CONFIG_T>(position) * CONFIG_T::n_features, h, c, weights);
    if (CONFIG_T::return_sequences)
        emit_state<res_T, CONFIG_T>(h, res + output_slot<CONFIG_T>(position) * CONFIG_T::n_state);
}

// The state before the first step: zeros, or the h0 (and, for LSTM, c0) inputs (`initial_state`).
template <class CELL_T, class CONFIG_T, class h0_T, class c0_T>
inline void start_state(typename CONFIG_T::state_t h[CONFIG_T::n_state], typename CONFIG_T::cell_t *c, const h0_T *h0,
                        const c0_T *c0) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_state; j++) {
        if (CONFIG_T::initial_state)
            h[j] = h0[j];
        else
            h[j] = 0;
    }
    NNET_UNROLL
    for (unsigned j = 0; j < CELL_T::n_cell + 1; j++) {
        if (CONFIG_T::initial_state && j < CELL_T::n_cell)
            c[j] = c0[j];
        else
            c[j] = 0;
    }
}

// One step of the shared cell, its state in static storage, started at position 0 (hls4ml's `static`).
template <class CELL_T, class data_T, class res_T, typename CONFIG_T, class h0_T, class c0_T>
void recurrent_static_step(const data_T data[CONFIG_T::n_in], res_T *res, unsigned position,
                           const recurrent_weights<CONFIG_T> &weights, const h0_T *h0, const c0_T *c0) {
    NNET_INLINE_OFF
    NNET_PERSISTENT typename CONFIG_T::state_t h[CONFIG_T::n_state];
    NNET_PERSISTENT typename CONFIG_T::cell_t c[CELL_T::n_cell + 1];
    if (position == 0)
        start_state<CELL_T, CONFIG_T, h0_T, c0_T>(h, c, h0, c0);
    recurrent_step<CELL_T, data_T, res_T, CONFIG_T>(data, res, position, h, c, weights);
    if (!CONFIG_T::return_sequences && position == CONFIG_T::n_steps - 1)
        emit_last<res_T, CONFIG_T>(h, c, res);
}

template <class CELL_T, class data_T, class res_T, typename CONFIG_T, class h0_T = typename CONFIG_T::state_t,
          class c0_T = typename CONFIG_T::cell_t>
void recurrent(const data_T data[CONFIG_T::n_in], res_T *res, const recurrent_weights<CONFIG_T> &weights,
               const h0_T *h0 = nullptr, const c0_T *c0 = nullptr) {
    NNET_INLINE
    if (CONFIG_T::static_cell) {
        for (unsigned position = 0; position < CONFIG_T::n_steps; position++)
            recurrent_static_step<CELL_T, data_T, res_T, CONFIG_T, h0_T, c0_T>(data, res, position, weights, h0, c0);
        return;
    }
    typename CONFIG_T::state_t h[CONFIG_T::n_state];
    typename CONFIG_T::cell_t c[CELL_T::n_cell + 1];
    NNET_ARRAY_PARTITION_COMPLETE(h)
    NNET_ARRAY_PARTITION_COMPLETE(c)
    start_state<CELL_T, CONFIG_T, h0_T, c0_T>(h, c, h0, c0);
    NNET_UNROLL
    for (unsigned position = 0; position < CONFIG_T::n_steps; position++)
        recurrent_step<CELL_T, data_T, res_T, CONFIG_T>(data, res, position, h, c, weights);
    if (!CONFIG_T::return_sequences)
        emit_last<res_T, CONFIG_T>(h, c, res);
}

// ---- the calls the lowering emits -------------------------------------------------------------------------

// The kernels the lowering calls: the weights, the biases and the three tables (a null pointer for a
// gate function without a table, and for the cell table of SimpleRNN and GRU).
#define NNET_RECURRENT_WEIGHT_ARGUMENTS                                                                              \
    const typename CONFIG_T::weight_t *kernel, const typename CONFIG_T::recurrent_weight_t *recurrent_kernel,      \
        const typename CONFIG_T::bias_t *bias, const typename CONFIG_T::recurrent_bias_t *recurrent_bias,          \
        const typename CONFIG_T::act_table_t *act_table, const typename CONFIG_T::rec_table_t *rec_table,          \
        const typename CONFIG_T::cell_table_t *cell_table
#define NNET_RECURRENT_ARGUMENTS const data_T data[CONFIG_T::n_in], res_T *res, NNET_RECURRENT_WEIGHT_ARGUMENTS
#define NNET_RECURRENT_WEIGHTS {kernel, recurrent_kernel, bias, recurrent_bias, act_table, rec_table, cell_table}

template <class data_T, class res_T, typename CONFIG_T> void simple_rnn(NNET_RECURRENT_ARGUMENTS) {
    const recurrent_weights<CONFIG_T> weights NNET_RECURRENT_WEIGHTS;
    recurrent<simple_rnn_cell<CONFIG_T>, data_T, res_T, CONFIG_T>(data, res, weights);
}

template <class data_T, class res_T, typename CONFIG_T> void lstm(NNET_RECURRENT_ARGUMENTS) {
    const recurrent_weights<CONFIG_T> weights NNET_RECURRENT_WEIGHTS;
    recurrent<lstm_cell<CONFIG_T>, data_T, res_T, CONFIG_T>(data, res, weights);
}

template <class data_T, class res_T, typename CONFIG_T> void gru(NNET_RECURRENT_ARGUMENTS) {
    const recurrent_weights<CONFIG_T> weights NNET_RECURRENT_WEIGHTS;
    recurrent<gru_cell<CONFIG_T>, data_T, res_T, CONFIG_T>(data, res, weights);
}

// With `initial_state`: the initial h (and the LSTM's c) are inputs after the sequence.
template <class data_T, class h0_T, class res_T, typename CONFIG_T>
void simple_rnn_from(const data_T data[CONFIG_T::n_in], const h0_T h0[CONFIG_T::n_state], res_T *res,
                     NNET_RECURRENT_WEIGHT_ARGUMENTS) {
    const recurrent_weights<CONFIG_T> weights NNET_RECURRENT_WEIGHTS;
    recurrent<simple_rnn_cell<CONFIG_T>, data_T, res_T, CONFIG_T, h0_T>(data, res, weights, h0);
}

template <class data_T, class h0_T, class c0_T, class res_T, typename CONFIG_T>
void lstm_from(const data_T data[CONFIG_T::n_in], const h0_T h0[CONFIG_T::n_state], const c0_T c0[CONFIG_T::n_state],
               res_T *res, NNET_RECURRENT_WEIGHT_ARGUMENTS) {
    const recurrent_weights<CONFIG_T> weights NNET_RECURRENT_WEIGHTS;
    recurrent<lstm_cell<CONFIG_T>, data_T, res_T, CONFIG_T, h0_T, c0_T>(data, res, weights, h0, c0);
}

template <class data_T, class h0_T, class res_T, typename CONFIG_T>
void gru_from(const data_T data[CONFIG_T::n_in], const h0_T h0[CONFIG_T::n_state], res_T *res,
              NNET_RECURRENT_WEIGHT_ARGUMENTS) {
    const recurrent_weights<CONFIG_T> weights NNET_RECURRENT_WEIGHTS;
    recurrent<gru_cell<CONFIG_T>, data_T, res_T, CONFIG_T, h0_T>(data, res, weights, h0);
}

#undef NNET_RECURRENT_ARGUMENTS
#undef NNET_RECURRENT_WEIGHT_ARGUMENTS
#undef NNET_RECURRENT_WEIGHTS

} // namespace nnet

#endif
