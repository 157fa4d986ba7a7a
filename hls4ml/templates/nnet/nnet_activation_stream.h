// Activations, batch normalization and softmax for io_stream.
//
// The tensor of CONFIG_T::n_in values arrives as n_in / data_T::size elements; each element is
// mapped value by value with the element operation of the io_parallel kernel (nnet_activation.h,
// nnet_activation_table.h, nnet_batchnorm.h), so every result is the same write as there and the
// bits are identical. The operation receives the flat index e * size + j of a value (prelu's
// alpha, batch normalization's channel). The element loop (elementwise_stream, nnet_stream.h) is
// pipelined at II = 1.
//
// Softmax normalizes rows of n_slice values (0: all n_in, i.e. one element): every element holds
// whole rows, and each element goes through the io_parallel softmax kernel of the same name.
#ifndef NNET_ACTIVATION_STREAM_H_
#define NNET_ACTIVATION_STREAM_H_

#include "nnet_activation.h"
#include "nnet_activation_table.h"
#include "nnet_batchnorm.h"
#include "nnet_csim_fast.h"
#include "nnet_softmax.h"
#include "nnet_stream.h"

namespace nnet {

// ---- activations without tables ----------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T> void linear(stream<data_T> &data, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_in>(data, res, copy_op());
}

#ifdef NNET_CSIM_FAST
// C-simulation only (nnet_csim_fast.h): relu into the input's own type keeps a positive value's raw
// integer and gives 0 otherwise, as relu_op's writes do; here on the raw integers of each element.
template <unsigned N, class data_T, class res_T> void relu_raw(stream<data_T> &data, stream<res_T> &res) {
    typedef typename res_T::value_type::raw_type raw_type;
    for (unsigned e = 0; e < stream_elements<data_T, N>::count; e++) {
        const data_T in = data.read();
        res_T out;
        for (unsigned j = 0; j < res_T::size; j++) {
            const raw_type raw = in[j].raw_;
            out[j].raw_ = raw > 0 ? raw : raw_type(0);
        }
        res.write(out);
    }
}
#endif

template <class data_T, class res_T, typename CONFIG_T> void relu(stream<data_T> &data, stream<res_T> &res) {
#ifdef NNET_CSIM_FAST
    typedef typename data_T::value_type data_elem;
    if constexpr (std::is_same<data_elem, typename res_T::value_type>::value &&
                  csim_fast::machine_raw<data_elem>::value) {
        relu_raw<CONFIG_T::n_in>(data, res);
    } else
#endif
    {
        elementwise_stream<CONFIG_T::n_in>(data, res, relu_op());
    }
}

template <class data_T, class res_T, typename CONFIG_T> void bipolar(stream<data_T> &data, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_in>(data, res, bipolar_op());
}

template <class data_T, class res_T, typename CONFIG_T>
void leaky_relu(stream<data_T> &data, stream<res_T> &res, typename CONFIG_T::param_t alpha) {
    elementwise_stream<CONFIG_T::n_in>(data, res, leaky_relu_op<typename CONFIG_T::param_t>{alpha});
}

template <class data_T, class res_T, typename CONFIG_T>
void thresholded_relu(stream<data_T> &data, stream<res_T> &res, typename CONFIG_T::param_t theta) {
    elementwise_stream<CONFIG_T::n_in>(data, res, thresholded_relu_op<typename CONFIG_T::param_t>{theta});
}

template <class data_T, class res_T, typename CONFIG_T>
void clipped_relu(stream<data_T> &data, stream<res_T> &res, typename CONFIG_T::param_t ceiling) {
    elementwise_stream<CONFIG_T::n_in>(data, res, clipped_relu_op<typename CONFIG_T::param_t>{ceiling});
}

template <class data_T, class res_T, typename CONFIG_T>
void prelu(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::param_t alpha[CONFIG_T::n_in]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, prelu_op<typename CONFIG_T::param_t>{alpha});
}

template <class data_T, class res_T, typename CONFIG_T>
void hard_sigmoid(stream<data_T> &data, stream<res_T> &res, typename CONFIG_T::param_t slope,
                  typename CONFIG_T::param_t shift) {
    elementwise_stream<CONFIG_T::n_in>(data, res, hard_sigmoid_op<typename CONFIG_T::param_t>{slope, shift});
}

template <class data_T, class res_T, typename CONFIG_T>
void hard_swish(stream<data_T> &data, stream<res_T> &res, typename CONFIG_T::param_t slope,
                typename CONFIG_T::param_t shift) {
    elementwise_stream<CONFIG_T::n_in>(data, res, hard_swish_op<typename CONFIG_T::param_t>{slope, shift});
}

// ---- table activations -----------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T>
void sigmoid(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, bounded_table_op<CONFIG_T, 0, 1>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void tanh(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, bounded_table_op<CONFIG_T, -1, 1>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void softsign(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, bounded_table_op<CONFIG_T, -1, 1>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void softplus(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void gelu(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void gelu_tanh(stream<data_T> &data, stream<res_T> &res,
               const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void silu(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void elu(stream<data_T> &data, stream<res_T> &res, typename CONFIG_T::param_t alpha,
         const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, elu_op<CONFIG_T>{table, alpha});
}

template <class data_T, class res_T, typename CONFIG_T>
void selu(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    const typename CONFIG_T::param_t scale = selu_scale;
    elementwise_stream<CONFIG_T::n_in>(data, res, selu_op<CONFIG_T>{table, scale});
}

template <class data_T, class res_T, typename CONFIG_T>
void unary_lut(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    elementwise_stream<CONFIG_T::n_in>(data, res, table_lookup_op<CONFIG_T>{table});
}

// ---- batch normalization ---------------------------------------------------------------------------

// The channel of a value is its flat index modulo n_scale_bias; when the element size is a multiple
// of n_scale_bias (channels-last elements of n_chan values) that is j itself, so the operation gets
// j (a constant after unrolling) instead of the running flat index.
template <class scale_T, class bias_T, unsigned NScaleBias, unsigned Size> struct stream_scale_shift_op {
    scale_shift_op<scale_T, bias_T, NScaleBias> op;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned i) const {
        op(x, out, Size % NScaleBias == 0 ? i % Size : i);
    }
};

template <class data_T, class res_T, typename CONFIG_T>
void normalize(stream<data_T> &data, stream<res_T> &res, const typename CONFIG_T::scale_t scale[CONFIG_T::n_scale_bias],
               const typename CONFIG_T::bias_t bias[CONFIG_T::n_scale_bias]) {
    typedef scale_shift_op<typename CONFIG_T::scale_t, typename CONFIG_T::bias_t, CONFIG_T::n_scale_bias> op;
    typedef stream_scale_shift_op<typename CONFIG_T::scale_t, typename CONFIG_T::bias_t, CONFIG_T::n_scale_bias,
                                  data_T::size>
        stream_op;
    elementwise_stream<CONFIG_T::n_in>(data, res, stream_op{op{scale, bias}});
}

// ---- softmax ---------------------------------------------------------------------------------------

// The io_parallel softmax config narrowed to one element of N values (the rows stay n_slice long).
template <class CONFIG_T, unsigned N> struct softmax_element_config : CONFIG_T {
    static const unsigned n_in = N;
    static_assert(N % softmax_rows<CONFIG_T>::slice == 0, "softmax stream: an element must hold whole rows");
};

template <class data_T, class res_T, typename CONFIG_T, int Difference>
void softmax_with_tables(stream<data_T> &data, stream<res_T> &res,
                         const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                         const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    static_assert(data_T::size == res_T::size, "softmax stream: element sizes differ");
    typedef softmax_element_config<CONFIG_T, data_T::size> element_config;
    for (unsigned e = 0; e < stream_elements<data_T, CONFIG_T::n_in>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        softmax_with_tables<typename data_T::value_type, typename res_T::value_type, element_config, Difference>(
            in.data, out.data, exp_table, inv_table);
        res.write(out);
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void softmax_stable(stream<data_T> &data, stream<res_T> &res,
                    const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                    const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    softmax_with_tables<data_T, res_T, CONFIG_T, CONFIG_T::max_minus_x ? softmax_max_minus_x : softmax_x_minus_max>(
        data, res, exp_table, inv_table);
}

template <class data_T, class res_T, typename CONFIG_T>
void softmax_latency(stream<data_T> &data, stream<res_T> &res,
                     const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                     const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    softmax_with_tables<data_T, res_T, CONFIG_T, softmax_x>(data, res, exp_table, inv_table);
}

template <class data_T, class res_T, typename CONFIG_T>
void softmax_argmax(stream<data_T> &data, stream<res_T> &res) {
    static_assert(data_T::size == res_T::size, "softmax stream: element sizes differ");
    typedef softmax_element_config<CONFIG_T, data_T::size> element_config;
    for (unsigned e = 0; e < stream_elements<data_T, CONFIG_T::n_in>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        softmax_argmax<typename data_T::value_type, typename res_T::value_type, element_config>(in.data, out.data);
        res.write(out);
    }
}

} // namespace nnet

#endif
