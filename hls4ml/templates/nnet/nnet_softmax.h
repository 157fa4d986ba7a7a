// Softmax, io_parallel, over each row of n_slice consecutive values of data[n_in] (the last axis
// of a channels-last tensor; n_slice = 0 means one row of all n_in values), in three
// implementations (the config's implementation field records which one the lowering chose; each
// has its own kernel):
//
//   softmax_stable   e_i = exp_table(x_i - max_j x_j); sum = sum_i e_i; res_i = e_i * inv_table(sum)
//                    (max_minus_x: exp_table(max_j x_j - x_i), the tables of HGQ2's QSoftmax, whose
//                    index types are its quantizers)
//   softmax_latency  the same without subtracting the maximum (cheaper, needs a wider exp table)
//   softmax_argmax   one-hot of the first maximum (the lowest index among equal maxima)
//
// Writes: e_i into exp_table_t (a table entry), sum += e_i into accum_t in index order, the
// reciprocal into inv_table_t (an entry), res_i = e_i * inv (full-precision product) into res_T.
// The max and the difference x_i - max are exact. Tables and grids come from hls4ml/model/tables.py.
#ifndef NNET_SOFTMAX_H_
#define NNET_SOFTMAX_H_

#include "nnet_common.h"
#include "nnet_table.h"

namespace nnet {

// hls4ml 1.x numbering; 1 was its 'legacy' implementation, which is not provided.
enum softmax_implementation { softmax_latency_impl = 0, softmax_stable_impl = 2, softmax_argmax_impl = 3 };

// What the exp table reads: x (latency), x - max (stable), or max - x (stable, max_minus_x).
enum softmax_difference { softmax_x = 0, softmax_x_minus_max = 1, softmax_max_minus_x = 2 };

struct softmax_config {
    // Required typedefs: exp_table_t, inv_table_t, exp_index_t, inv_index_t, accum_t (not argmax).
    static const unsigned n_in = 10;
    static const unsigned n_slice = 0; // values per softmax row; 0: the whole n_in
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    static const unsigned implementation = softmax_stable_impl;
    static const unsigned table_size = 1024; // entries of each of the two tables
    static const int exp_table_shift = 0;
    static const int exp_table_start = 0;
    static const int inv_table_shift = 0;
    static const int inv_table_start = 0;
    static const bool max_minus_x = false;
};

template <class CONFIG_T> struct softmax_rows {
    static const unsigned slice = CONFIG_T::n_slice ? CONFIG_T::n_slice : CONFIG_T::n_in;
    static const unsigned count = CONFIG_T::n_in / slice;
    static_assert(CONFIG_T::n_in % slice == 0, "softmax: n_in must be a multiple of n_slice");
};

// The exp entry of x (x - max for the stable implementation), clamped at the table ends.
template <class CONFIG_T, class T>
inline typename CONFIG_T::exp_table_t softmax_exp(const typename CONFIG_T::exp_table_t *table, const T &x) {
    typedef typename CONFIG_T::exp_index_t index_t;
    const int slot = table_slot<index_t, CONFIG_T::exp_table_shift, CONFIG_T::exp_table_start>(x);
    return table[clamp_slot<CONFIG_T::table_size>(slot)];
}

// The reciprocal-table entry of a sum of exponentials, clamped at the table ends.
template <class CONFIG_T, class T>
inline typename CONFIG_T::inv_table_t softmax_inverse(const typename CONFIG_T::inv_table_t *table, const T &sum) {
    typedef typename CONFIG_T::inv_index_t index_t;
    const int slot = table_slot<index_t, CONFIG_T::inv_table_shift, CONFIG_T::inv_table_start>(sum);
    return table[clamp_slot<CONFIG_T::table_size>(slot)];
}

// The index of the first maximum (ties keep the lowest index).
template <class data_T, unsigned N> inline unsigned first_max_index(const data_T *data) {
    NNET_INLINE
    unsigned best = 0;
    NNET_UNROLL
    for (unsigned i = 1; i < N; i++) {
        if (greater_than(data[i], data[best]))
            best = i;
    }
    return best;
}

// One row: e_i = exp_table(x_i - max) or exp_table(max - x_i) (stable) or exp_table(x_i) (latency), then
// res_i = e_i / sum_j e_j through the reciprocal table.
template <class data_T, class res_T, typename CONFIG_T, int Difference>
inline void softmax_row(const data_T *data, res_T *res, const typename CONFIG_T::exp_table_t *exp_table,
                        const typename CONFIG_T::inv_table_t *inv_table) {
    NNET_INLINE
    const unsigned slice = softmax_rows<CONFIG_T>::slice;
    const data_T x_max = data[first_max_index<data_T, slice>(data)];
    typename CONFIG_T::exp_table_t exp_res[slice];
    NNET_ARRAY_PARTITION_COMPLETE(exp_res)
    typename CONFIG_T::accum_t sum = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < slice; i++) {
        if (Difference == softmax_max_minus_x)
            exp_res[i] = softmax_exp<CONFIG_T>(exp_table, x_max - data[i]);
        else if (Difference == softmax_x_minus_max)
            exp_res[i] = softmax_exp<CONFIG_T>(exp_table, data[i] - x_max);
        else
            exp_res[i] = softmax_exp<CONFIG_T>(exp_table, data[i]);
        sum += exp_res[i];
    }
    const typename CONFIG_T::inv_table_t inverse = softmax_inverse<CONFIG_T>(inv_table, sum);
    NNET_UNROLL
    for (unsigned i = 0; i < slice; i++) {
        res[i] = exp_res[i] * inverse;
    }
}

// The two table implementations: the same rows, with (stable) or without (latency) subtracting
// each row's maximum first.
template <class data_T, class res_T, typename CONFIG_T, int Difference>
void softmax_with_tables(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                         const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                         const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typedef softmax_rows<CONFIG_T> rows;
    NNET_UNROLL
    for (unsigned row = 0; row < rows::count; row++) {
        softmax_row<data_T, res_T, CONFIG_T, Difference>(data + row * rows::slice, res + row * rows::slice,
                                                           exp_table, inv_table);
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void softmax_stable(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                    const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                    const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    softmax_with_tables<data_T, res_T, CONFIG_T, CONFIG_T::max_minus_x ? softmax_max_minus_x : softmax_x_minus_max>(
        data, res, exp_table, inv_table);
}

template <class data_T, class res_T, typename CONFIG_T>
void softmax_latency(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                     const typename CONFIG_T::exp_table_t exp_table[CONFIG_T::table_size],
                     const typename CONFIG_T::inv_table_t inv_table[CONFIG_T::table_size]) {
    NNET_INLINE
    softmax_with_tables<data_T, res_T, CONFIG_T, softmax_x>(data, res, exp_table, inv_table);
}

template <class data_T, class res_T, typename CONFIG_T>
void softmax_argmax(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typedef softmax_rows<CONFIG_T> rows;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        res[i] = 0;
    }
    NNET_UNROLL
    for (unsigned row = 0; row < rows::count; row++) {
        const unsigned first = row * rows::slice;
        res[first + first_max_index<data_T, rows::slice>(data + first)] = 1;
    }
}

} // namespace nnet

#endif
