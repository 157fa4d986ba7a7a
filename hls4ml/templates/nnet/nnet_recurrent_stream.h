// Recurrent layers for io_stream: one time step per stream element (n_features values in; n_state values
// out per step with return_sequences, one element of n_state values otherwise).
//
// The steps are gathered, then go through the io_parallel kernels of nnet_recurrent.h unchanged (same
// config struct, weights, tables and bits); a backward layer needs its last step first, so the whole
// sequence is read before the first step runs.
#ifndef NNET_RECURRENT_STREAM_H_
#define NNET_RECURRENT_STREAM_H_

#include "nnet_recurrent.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class CONFIG_T>
inline void read_steps(stream<data_T> &data, typename data_T::value_type values[CONFIG_T::n_in]) {
    static_assert(data_T::size == CONFIG_T::n_features, "recurrent stream: an input element must hold one step");
    for (unsigned step = 0; step < CONFIG_T::n_steps; step++) {
        const data_T in = data.read();
        NNET_UNROLL
        for (unsigned i = 0; i < CONFIG_T::n_features; i++)
            values[step * CONFIG_T::n_features + i] = in[i];
    }
}

template <class res_T, class CONFIG_T> inline void write_steps(const typename res_T::value_type *values, stream<res_T> &res) {
    static_assert(res_T::size == CONFIG_T::n_state, "recurrent stream: an output element must hold one state");
    const unsigned elements = CONFIG_T::return_sequences ? CONFIG_T::n_steps : 1;
    for (unsigned step = 0; step < elements; step++) {
        res_T out;
        NNET_UNROLL
        for (unsigned j = 0; j < CONFIG_T::n_state; j++)
            out[j] = values[step * CONFIG_T::n_state + j];
        res.write(out);
    }
}

template <class data_T, class res_T, class CONFIG_T> struct recurrent_stream_buffers {
    static const unsigned n_res = CONFIG_T::return_sequences ? CONFIG_T::n_steps * CONFIG_T::n_state : CONFIG_T::n_state;
    typename data_T::value_type in[CONFIG_T::n_in];
    typename res_T::value_type out[n_res];
};

#define NNET_RECURRENT_STREAM_KERNEL(NAME)                                                                          \
    template <class data_T, class res_T, typename CONFIG_T>                                                         \
    void NAME(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::weight_t *kernel,                 \
              const typename CONFIG_T::recurrent_weight_t *recurrent_kernel, const typename CONFIG_T::bias_t *bias, \
              const typename CONFIG_T::recurrent_bias_t *recurrent_bias,                                            \
              const typename CONFIG_T::act_table_t *act_table, const typename CONFIG_T::rec_table_t *rec_table,     \
              const typename CONFIG_T::cell_table_t *cell_table) {                                                  \
        recurrent_stream_buffers<data_T, res_T, CONFIG_T> buffers;                                                  \
        read_steps<data_T, CONFIG_T>(data, buffers.in);                                                             \
        NAME<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(                                    \
            buffers.in, buffers.out, kernel, recurrent_kernel, bias, recurrent_bias, act_table, rec_table, cell_table); \
        write_steps<res_T, CONFIG_T>(buffers.out, res);                                                             \
    }

NNET_RECURRENT_STREAM_KERNEL(simple_rnn)
NNET_RECURRENT_STREAM_KERNEL(lstm)
NNET_RECURRENT_STREAM_KERNEL(gru)

#undef NNET_RECURRENT_STREAM_KERNEL

// With `initial_state`: h0 (and the LSTM's c0) arrive as one stream element of n_state values each.
template <class state_T, class CONFIG_T>
inline void read_state(stream<state_T> &state, typename state_T::value_type values[CONFIG_T::n_state]) {
    static_assert(state_T::size == CONFIG_T::n_state, "recurrent stream: an initial state is one element");
    const state_T in = state.read();
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_state; j++)
        values[j] = in[j];
}

#define NNET_RECURRENT_STREAM_WEIGHTS                                                                               \
    const typename CONFIG_T::weight_t *kernel, const typename CONFIG_T::recurrent_weight_t *recurrent_kernel,      \
        const typename CONFIG_T::bias_t *bias, const typename CONFIG_T::recurrent_bias_t *recurrent_bias,          \
        const typename CONFIG_T::act_table_t *act_table, const typename CONFIG_T::rec_table_t *rec_table,          \
        const typename CONFIG_T::cell_table_t *cell_table
#define NNET_RECURRENT_STREAM_PASSED kernel, recurrent_kernel, bias, recurrent_bias, act_table, rec_table, cell_table

#define NNET_RECURRENT_STREAM_KERNEL_FROM(NAME)                                                                     \
    template <class data_T, class h0_T, class res_T, typename CONFIG_T>                                             \
    void NAME##_from(stream<data_T> &data, stream<h0_T> &h0, stream<res_T> &res, NNET_RECURRENT_STREAM_WEIGHTS) {  \
        recurrent_stream_buffers<data_T, res_T, CONFIG_T> buffers;                                                  \
        typename h0_T::value_type h0_values[CONFIG_T::n_state];                                                     \
        read_steps<data_T, CONFIG_T>(data, buffers.in);                                                             \
        read_state<h0_T, CONFIG_T>(h0, h0_values);                                                                  \
        NAME##_from<typename data_T::value_type, typename h0_T::value_type, typename res_T::value_type, CONFIG_T>(  \
            buffers.in, h0_values, buffers.out, NNET_RECURRENT_STREAM_PASSED);                                      \
        write_steps<res_T, CONFIG_T>(buffers.out, res);                                                             \
    }

NNET_RECURRENT_STREAM_KERNEL_FROM(simple_rnn)
NNET_RECURRENT_STREAM_KERNEL_FROM(gru)

template <class data_T, class h0_T, class c0_T, class res_T, typename CONFIG_T>
void lstm_from(stream<data_T> &data, stream<h0_T> &h0, stream<c0_T> &c0, stream<res_T> &res,
               NNET_RECURRENT_STREAM_WEIGHTS) {
    recurrent_stream_buffers<data_T, res_T, CONFIG_T> buffers;
    typename h0_T::value_type h0_values[CONFIG_T::n_state];
    typename c0_T::value_type c0_values[CONFIG_T::n_state];
    read_steps<data_T, CONFIG_T>(data, buffers.in);
    read_state<h0_T, CONFIG_T>(h0, h0_values);
    read_state<c0_T, CONFIG_T>(c0, c0_values);
    lstm_from<typename data_T::value_type, typename h0_T::value_type, typename c0_T::value_type,
              typename res_T::value_type, CONFIG_T>(buffers.in, h0_values, c0_values, buffers.out,
                                                    NNET_RECURRENT_STREAM_PASSED);
    write_steps<res_T, CONFIG_T>(buffers.out, res);
}

#undef NNET_RECURRENT_STREAM_KERNEL_FROM
#undef NNET_RECURRENT_STREAM_WEIGHTS
#undef NNET_RECURRENT_STREAM_PASSED

} // namespace nnet

#endif
