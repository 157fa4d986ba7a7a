// Gathers, io_parallel: every output reads input positions fixed at conversion, listed in an index
// table the lowering computed (flat channels-last positions; docs/kernels.md).
//
// gather: res[o] = data[index[o]], one write into res_T of an input value (tensor slicing), or of the
// integer 0 where index[o] = n_in (the zeros inserted in front of a transposed convolution).
// reduce: res[o] = op(data[index[o * n_reduce + k]] for k < n_reduce), op sum, max or min: the first
// value is written into accum_t, each further one added (sum: one write into accum_t of the
// full-precision sum) or kept when it is greater (max) or smaller (min), then one write into res_T.
// interpolate: res[o] = sum_k weight[o * n_reduce + k] * data[index[o * n_reduce + k]], each product at
// full precision added into accum_t (the first written into it), then one write into res_T.
#ifndef NNET_GATHER_H_
#define NNET_GATHER_H_

#include "nnet_common.h"

namespace nnet {

enum reduce_operation { reduce_sum = 0, reduce_max = 1, reduce_min = 2 };

struct gather_config {
    static const unsigned n_in = 10;
    static const unsigned n_out = 10;
    static const unsigned io_type = io_parallel;
};

struct reduce_config {
    // Required typedef: accum_t.
    static const unsigned n_in = 10;
    static const unsigned n_out = 1;
    static const unsigned n_reduce = 10;
    static const unsigned op = reduce_sum;
    static const unsigned io_type = io_parallel;
};

template <class data_T, class res_T, typename CONFIG_T>
void gather(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out], const unsigned index[CONFIG_T::n_out]) {
    NNET_PIPELINE(1)
    NNET_UNROLL
    for (unsigned o = 0; o < CONFIG_T::n_out; o++) {
        if (index[o] < CONFIG_T::n_in)
            res[o] = data[index[o]];
        else
            res[o] = 0;
    }
}

// One value folded into the running result of a reduction.
template <unsigned op, class accum_T, class data_T> inline void reduce_step(accum_T &total, const data_T &value) {
    if (op == reduce_sum)
        total = total + value;
    else if (op == reduce_max ? greater_than(value, total) : greater_than(total, value))
        total = value;
}

template <class data_T, class res_T, typename CONFIG_T>
void reduce(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
            const unsigned index[CONFIG_T::n_out * CONFIG_T::n_reduce]) {
    NNET_PIPELINE(1)
    NNET_UNROLL
    for (unsigned o = 0; o < CONFIG_T::n_out; o++) {
        typename CONFIG_T::accum_t total = data[index[o * CONFIG_T::n_reduce]];
        NNET_UNROLL
        for (unsigned k = 1; k < CONFIG_T::n_reduce; k++) {
            reduce_step<CONFIG_T::op>(total, data[index[o * CONFIG_T::n_reduce + k]]);
        }
        res[o] = total;
    }
}

struct interpolate_config {
    // Required typedefs: accum_t, weight_t.
    static const unsigned n_in = 10;
    static const unsigned n_out = 10;
    static const unsigned n_reduce = 2;
    static const unsigned io_type = io_parallel;
};

template <class data_T, class res_T, typename CONFIG_T>
void interpolate(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                 const unsigned index[CONFIG_T::n_out * CONFIG_T::n_reduce],
                 const typename CONFIG_T::weight_t weight[CONFIG_T::n_out * CONFIG_T::n_reduce]) {
    NNET_PIPELINE(1)
    NNET_UNROLL
    for (unsigned o = 0; o < CONFIG_T::n_out; o++) {
        const unsigned first = o * CONFIG_T::n_reduce;
        typename CONFIG_T::accum_t total = weight[first] * data[index[first]];
        NNET_UNROLL
        for (unsigned k = 1; k < CONFIG_T::n_reduce; k++) {
            total = total + weight[first + k] * data[index[first + k]];
        }
        res[o] = total;
    }
}

} // namespace nnet

#endif
