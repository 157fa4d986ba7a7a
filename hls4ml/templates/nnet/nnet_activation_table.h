// Table-based activations, io_parallel: sigmoid, tanh, softsign, softplus, gelu, gelu_tanh, silu, elu,
// selu, and unary_lut (a table of any function over the whole input grid).
//
// The table (`const typename CONFIG_T::table_t table[CONFIG_T::table_size]`) and its grid
// (table_shift, table_start, index_t) come from hls4ml/model/tables.py; the index math is in
// nnet_table.h. Beyond the table range the saturating functions take their limits, written into
// table_t like an entry (sigmoid 0 / 1, tanh and softsign -1 / +1), softplus, gelu and silu are 0
// below and x above. elu and selu look up only negative inputs, clamped to the first entry below the
// range (where exp(x) - 1 has reached -1 within the table precision).
#ifndef NNET_ACTIVATION_TABLE_H_
#define NNET_ACTIVATION_TABLE_H_

#include "nnet_activation.h"
#include "nnet_table.h"

namespace nnet {

template <class CONFIG_T, class data_T> inline int activation_slot(const data_T &x) {
    return table_slot<typename CONFIG_T::index_t, CONFIG_T::table_shift, CONFIG_T::table_start>(x);
}

template <class CONFIG_T, class data_T>
inline typename CONFIG_T::table_t clamped_lookup(const typename CONFIG_T::table_t *table, const data_T &x) {
    return table[clamp_slot<CONFIG_T::table_size>(activation_slot<CONFIG_T>(x))];
}

// A table whose function tends to the integers Below and Above outside the table range.
template <class CONFIG_T, int Below, int Above> struct bounded_table_op {
    const typename CONFIG_T::table_t *table;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        const int slot = activation_slot<CONFIG_T>(x);
        typename CONFIG_T::table_t value = Below;
        if (slot >= int(CONFIG_T::table_size))
            value = Above;
        else if (slot >= 0)
            value = table[slot];
        out = value;
    }
};

// A function that tends to 0 below its table and to x above it: softplus, gelu (both forms), silu.
template <class CONFIG_T> struct ramp_table_op {
    const typename CONFIG_T::table_t *table;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        const int slot = activation_slot<CONFIG_T>(x);
        if (slot >= int(CONFIG_T::table_size)) {
            out = x; // beyond the table f(x) equals x within the table precision (tables.py: _ramp_reach)
            return;
        }
        typename CONFIG_T::table_t value = 0;
        if (slot >= 0)
            value = table[slot];
        out = value;
    }
};

// x > 0 ? x : alpha * table(x), the table holding exp(x) - 1.
template <class CONFIG_T> struct elu_op {
    const typename CONFIG_T::table_t *table;
    typename CONFIG_T::param_t alpha;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (is_negative(x))
            out = alpha * clamped_lookup<CONFIG_T>(table, x);
        else
            out = x;
    }
};

// x > 0 ? scale * x : table(x), the table holding scale * alpha * (exp(x) - 1).
template <class CONFIG_T> struct selu_op {
    const typename CONFIG_T::table_t *table;
    typename CONFIG_T::param_t scale;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        if (is_negative(x))
            out = clamped_lookup<CONFIG_T>(table, x);
        else
            out = scale * x;
    }
};

// The entry of x in a table over x's whole grid (kind UnaryLUT, HGQ2's QUnaryFunctionLUT): every input
// value has its own entry, computed by the frontend; values beyond the table use the nearest end entry.
template <class CONFIG_T> struct table_lookup_op {
    const typename CONFIG_T::table_t *table;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const {
        out = clamped_lookup<CONFIG_T>(table, x);
    }
};

// The SELU constants of Klambauer et al. (2017), as Keras and PyTorch use them; only the scale
// appears here (written into param_t), alpha is folded into the table by Python.
constexpr double selu_scale = 1.0507009873554804934193349852946;

template <class data_T, class res_T, typename CONFIG_T>
void sigmoid(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
             const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, bounded_table_op<CONFIG_T, 0, 1>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void tanh(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
          const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, bounded_table_op<CONFIG_T, -1, 1>{table});
}

// x / (1 + |x|)
template <class data_T, class res_T, typename CONFIG_T>
void softsign(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
              const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, bounded_table_op<CONFIG_T, -1, 1>{table});
}

// log(1 + exp(x))
template <class data_T, class res_T, typename CONFIG_T>
void softplus(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
              const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

// x * Phi(x) (erf form) and its tanh approximation; the table holds the one the layer computes
template <class data_T, class res_T, typename CONFIG_T>
void gelu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
          const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void gelu_tanh(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
               const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

// x * sigmoid(x) (swish)
template <class data_T, class res_T, typename CONFIG_T>
void silu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
          const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, ramp_table_op<CONFIG_T>{table});
}

template <class data_T, class res_T, typename CONFIG_T>
void elu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in], typename CONFIG_T::param_t alpha,
         const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, elu_op<CONFIG_T>{table, alpha});
}

template <class data_T, class res_T, typename CONFIG_T>
void selu(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
          const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    const typename CONFIG_T::param_t scale = selu_scale;
    elementwise<CONFIG_T::n_in>(data, res, selu_op<CONFIG_T>{table, scale});
}

template <class data_T, class res_T, typename CONFIG_T>
void unary_lut(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
               const typename CONFIG_T::table_t table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, table_lookup_op<CONFIG_T>{table});
}

} // namespace nnet

#endif
