// Einsum of two tensors computed at run time, io_parallel: Q @ K^T, A @ V, any two-operand einsum
// whose axes form the four loops of the plan (hls4ml/model/einsum.py):
//
//   for each batch b, row m, column n:
//     acc = 0;  for k = 0 .. n_inner-1: acc += data1[b, m, k] * data2[b, k, n];  res[b, m, n] = acc
//
// Each product is exact (full precision), each += a write into accum_t, the final assignment a write
// into res_T (docs/kernels.md). A tensor position is a flat index: the sum of each loop index times
// the tensor's stride along that loop (0 when the tensor lacks the loop), so transposed operands and
// outputs cost no data movement. Both strategies make the same writes in the same order.
//
// einsum_dense (Keras EinsumDense) is the same product with a constant second operand, the weights,
// and acc starting from the bias of its output position (biases laid out as the result) instead of 0.
#ifndef NNET_EINSUM_H_
#define NNET_EINSUM_H_

#include "nnet_common.h"

namespace nnet {

struct einsum_config {
    // Required typedef: accum_t.
    static const unsigned n_in = 10;  // values of input 1
    static const unsigned n_in2 = 10; // values of input 2
    static const unsigned n_out = 1;  // values of the result: n_batch * n_rows * n_columns
    static const unsigned n_batch = 1;
    static const unsigned n_rows = 1;
    static const unsigned n_columns = 1;
    static const unsigned n_inner = 10;
    static const unsigned first_batch_stride = 0; // input 1 along batch, rows, inner
    static const unsigned first_row_stride = 0;
    static const unsigned first_inner_stride = 1;
    static const unsigned second_batch_stride = 0; // input 2 along batch, inner, columns
    static const unsigned second_inner_stride = 1;
    static const unsigned second_column_stride = 0;
    static const unsigned out_batch_stride = 0; // the result along batch, rows, columns
    static const unsigned out_row_stride = 0;
    static const unsigned out_column_stride = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned strategy = latency;
    static const unsigned reuse_factor = 1;
};

// The flat positions of the plan's loops in each tensor, and the multiplier budget (each multiplier
// used reuse_factor times).
template <class CONFIG_T> struct einsum_plan {
    static const unsigned n_positions = CONFIG_T::n_batch * CONFIG_T::n_rows * CONFIG_T::n_columns;
    static const unsigned n_products = n_positions * CONFIG_T::n_inner;
    static const unsigned block_factor = ceil_div(n_products, CONFIG_T::reuse_factor);
    static const bool blocks_are_full = n_products % CONFIG_T::reuse_factor == 0;

    static unsigned first(unsigned b, unsigned m, unsigned k) {
        return b * CONFIG_T::first_batch_stride + m * CONFIG_T::first_row_stride + k * CONFIG_T::first_inner_stride;
    }
    static unsigned second(unsigned b, unsigned k, unsigned n) {
        return b * CONFIG_T::second_batch_stride + k * CONFIG_T::second_inner_stride +
               n * CONFIG_T::second_column_stride;
    }
    static unsigned output(unsigned b, unsigned m, unsigned n) {
        return b * CONFIG_T::out_batch_stride + m * CONFIG_T::out_row_stride + n * CONFIG_T::out_column_stride;
    }
};

// Where each accumulator starts: 0 (einsum) or the bias of its output position (einsum_dense), a
// write into accum_t either way.
struct einsum_zero {
    template <class accum_T> accum_T start(unsigned) const { return 0; }
};

template <class bias_T> struct einsum_bias {
    const bias_T *biases;
    template <class accum_T> accum_T start(unsigned position) const { return biases[position]; }
};

// Latency: every multiplication unrolled, the function pipelined at II = reuse_factor with at most
// ceil(n_products / reuse_factor) multipliers.
template <class input1_T, class input2_T, class res_T, typename CONFIG_T, class Start = einsum_zero>
void einsum_latency(const input1_T data1[CONFIG_T::n_in], const input2_T data2[CONFIG_T::n_in2],
                    res_T res[CONFIG_T::n_out], const Start &start = Start()) {
    typedef einsum_plan<CONFIG_T> plan;
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    constexpr unsigned multiplier_limit = plan::block_factor;
    NNET_ALLOCATION_MUL(multiplier_limit)
    NNET_UNROLL
    for (unsigned b = 0; b < CONFIG_T::n_batch; b++) {
        NNET_UNROLL
        for (unsigned m = 0; m < CONFIG_T::n_rows; m++) {
            NNET_UNROLL
            for (unsigned n = 0; n < CONFIG_T::n_columns; n++) {
                typename CONFIG_T::accum_t acc =
                    start.template start<typename CONFIG_T::accum_t>(plan::output(b, m, n));
                NNET_UNROLL
                for (unsigned k = 0; k < CONFIG_T::n_inner; k++) {
                    acc += data1[plan::first(b, m, k)] * data2[plan::second(b, k, n)];
                }
                res[plan::output(b, m, n)] = acc;
            }
        }
    }
}

// Resource: reuse_factor steps pipelined at II = 1, step s computing the block of block_factor
// consecutive products p = s * block_factor + j in (b, m, n, k) order, k fastest. Every position
// still adds its products in increasing k, so the writes are those of the Latency loop.
template <class input1_T, class input2_T, class res_T, typename CONFIG_T, class Start = einsum_zero>
void einsum_resource(const input1_T data1[CONFIG_T::n_in], const input2_T data2[CONFIG_T::n_in2],
                     res_T res[CONFIG_T::n_out], const Start &start = Start()) {
    typedef einsum_plan<CONFIG_T> plan;
    typename CONFIG_T::accum_t acc[plan::n_positions];
    NNET_ARRAY_PARTITION_COMPLETE(acc)
    NNET_UNROLL
    for (unsigned p = 0; p < plan::n_positions; p++) {
        const unsigned n = p % CONFIG_T::n_columns, m = (p / CONFIG_T::n_columns) % CONFIG_T::n_rows;
        acc[p] = start.template start<typename CONFIG_T::accum_t>(
            plan::output(p / (CONFIG_T::n_columns * CONFIG_T::n_rows), m, n));
    }
    for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned j = 0; j < plan::block_factor; j++) {
            const unsigned product = step * plan::block_factor + j;
            if (plan::blocks_are_full || product < plan::n_products) {
                const unsigned position = product / CONFIG_T::n_inner, k = product % CONFIG_T::n_inner;
                const unsigned n = position % CONFIG_T::n_columns, bm = position / CONFIG_T::n_columns;
                const unsigned m = bm % CONFIG_T::n_rows, b = bm / CONFIG_T::n_rows;
                acc[position] += data1[plan::first(b, m, k)] * data2[plan::second(b, k, n)];
            }
        }
    }
    NNET_UNROLL
    for (unsigned p = 0; p < plan::n_positions; p++) {
        const unsigned n = p % CONFIG_T::n_columns, m = (p / CONFIG_T::n_columns) % CONFIG_T::n_rows;
        res[plan::output(p / (CONFIG_T::n_columns * CONFIG_T::n_rows), m, n)] = acc[p];
    }
}

// The call the lowering emits. C-simulation runs the Latency loop for both strategies (the same
// writes in the same order; einsum_resource is checked against it in test/csim/nnet).
template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void einsum(const input1_T data1[CONFIG_T::n_in], const input2_T data2[CONFIG_T::n_in2], res_T res[CONFIG_T::n_out]) {
    NNET_INLINE
#ifdef __SYNTHESIS__
    if (CONFIG_T::strategy == resource) {
        einsum_resource<input1_T, input2_T, res_T, CONFIG_T>(data1, data2, res);
        return;
    }
#endif
    einsum_latency<input1_T, input2_T, res_T, CONFIG_T>(data1, data2, res);
}

// Keras EinsumDense: the einsum of the input with the constant weights (laid out as the kernel), each
// accumulator starting from its output position's bias. Config: einsum_config with n_in2 the number
// of weights; typedefs accum_t, weight_t, bias_t. The Resource form, with the same arguments:
template <class data_T, class res_T, typename CONFIG_T>
void einsum_dense_resource(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                           const typename CONFIG_T::weight_t weights[CONFIG_T::n_in2],
                           const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    const einsum_bias<typename CONFIG_T::bias_t> start = {biases};
    einsum_resource<data_T, typename CONFIG_T::weight_t, res_T, CONFIG_T>(data, weights, res, start);
}

// The call the lowering emits (C-simulation runs the Latency loop for both strategies, as einsum).
template <class data_T, class res_T, typename CONFIG_T>
void einsum_dense(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                  const typename CONFIG_T::weight_t weights[CONFIG_T::n_in2],
                  const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    NNET_INLINE
#ifdef __SYNTHESIS__
    if (CONFIG_T::strategy == resource) {
        einsum_dense_resource<data_T, res_T, CONFIG_T>(data, res, weights, biases);
        return;
    }
#endif
    const einsum_bias<typename CONFIG_T::bias_t> start = {biases};
    einsum_latency<data_T, typename CONFIG_T::weight_t, res_T, CONFIG_T>(data, weights, res, start);
}

} // namespace nnet

#endif
