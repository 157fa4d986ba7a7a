// Activations without tables, io_parallel: linear, relu, bipolar, leaky_relu, thresholded_relu,
// clipped_relu, prelu, hard_sigmoid, hard_swish. The table-based ones are in nnet_activation_table.h, softmax in nnet_softmax.h.
//
// Every kernel maps data[n_in] to res[n_in] element by element; each result is one write into
// res_T of either the input, a full-precision product/sum, or an integer constant (-1, 0 or 1).
// Scalar parameters arrive as `typename CONFIG_T::param_t` (the call site passes a double
// literal, which the conversion quantizes); per-element ones as const arrays of param_t.
#ifndef NNET_ACTIVATION_H_
#define NNET_ACTIVATION_H_

#include "nnet_common.h"

namespace nnet {

struct activ_config {
    // Required typedefs: param_t (kernels with parameters); table_t and index_t (table kernels).
    static const unsigned n_in = 10;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    // Table kernels only (see nnet_table.h): entries, grid step 2^-table_shift, first point
    // table_start * 2^-table_shift.
    static const unsigned table_size = 1024;
    static const int table_shift = 0;
    static const int table_start = 0;
};

// ---- element operations ---------------------------------------------------------------------------

struct relu_op {
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (is_positive(x))
            out = x;
        else
            out = 0;
    }
};

// QONNX BipolarQuant: -1 below zero, +1 from zero up (x == 0 gives +1).
struct bipolar_op {
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (is_negative(x))
            out = -1;
        else
            out = 1;
    }
};

template <class param_T> struct leaky_relu_op {
    param_T alpha;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (is_positive(x))
            out = x;
        else
            out = alpha * x;
    }
};

template <class param_T> struct thresholded_relu_op {
    param_T theta;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (greater_than(x, theta))
            out = x;
        else
            out = 0;
    }
};

// relu capped at `ceiling` (relu6: ceiling 6); the ceiling is written as param_T holds it.
template <class param_T> struct clipped_relu_op {
    param_T ceiling;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (!is_positive(x))
            out = 0;
        else if (greater_than(x, ceiling))
            out = ceiling;
        else
            out = x;
    }
};

template <class param_T> struct prelu_op {
    const param_T *alpha;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned i) const {
        if (is_positive(x))
            out = x;
        else
            out = alpha[i] * x;
    }
};

// y = x * slope + shift at full precision, clipped to [0, 1].
template <class param_T> struct hard_sigmoid_op {
    param_T slope, shift;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        const auto y = x * slope + shift;
        if (is_negative(y))
            out = 0;
        else if (greater_than(y, 1))
            out = 1;
        else
            out = y;
    }
};

// x * clip(x * slope + shift, 0, 1): the gate and the product at full precision, then one write.
template <class param_T> struct hard_swish_op {
    param_T slope, shift;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        const auto gate = x * slope + shift;
        if (is_negative(gate))
            out = 0;
        else if (greater_than(gate, 1))
            out = x;
        else
            out = x * gate;
    }
};

// ---- kernels ----------------------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T>
void linear(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, copy_op());
}

template <class data_T, class res_T, typename CONFIG_T>
void relu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, relu_op());
}

// x < 0 ? -1 : 1
template <class data_T, class res_T, typename CONFIG_T>
void bipolar(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, bipolar_op());
}

// x > 0 ? x : alpha * x
template <class data_T, class res_T, typename CONFIG_T>
void leaky_relu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in], typename CONFIG_T::param_t alpha) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, leaky_relu_op<typename CONFIG_T::param_t>{alpha});
}

// x > theta ? x : 0
template <class data_T, class res_T, typename CONFIG_T>
void thresholded_relu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                      typename CONFIG_T::param_t theta) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, thresholded_relu_op<typename CONFIG_T::param_t>{theta});
}

// x > 0 ? min(x, ceiling) : 0
template <class data_T, class res_T, typename CONFIG_T>
void clipped_relu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in], typename CONFIG_T::param_t ceiling) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, clipped_relu_op<typename CONFIG_T::param_t>{ceiling});
}

// x > 0 ? x : alpha[i] * x
template <class data_T, class res_T, typename CONFIG_T>
void prelu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
           const typename CONFIG_T::param_t alpha[CONFIG_T::n_in]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, prelu_op<typename CONFIG_T::param_t>{alpha});
}

// clip(x * slope + shift, 0, 1); Keras 3 (relu6(x + 3) / 6) is slope 1/6, shift 1/2.
template <class data_T, class res_T, typename CONFIG_T>
void hard_sigmoid(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in], typename CONFIG_T::param_t slope,
                  typename CONFIG_T::param_t shift) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, hard_sigmoid_op<typename CONFIG_T::param_t>{slope, shift});
}

// x * clip(x * slope + shift, 0, 1); Keras hard_silu and torch Hardswish are slope 1/6, shift 1/2.
template <class data_T, class res_T, typename CONFIG_T>
void hard_swish(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in], typename CONFIG_T::param_t slope,
                typename CONFIG_T::param_t shift) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, hard_swish_op<typename CONFIG_T::param_t>{slope, shift});
}

} // namespace nnet

#endif
