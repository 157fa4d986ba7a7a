// Shared enums and small helpers of the kernel library. Kernels include this header (which pulls in
// the dialect) and never name a vendor type: every type comes from the layer's config struct.
#ifndef NNET_COMMON_H_
#define NNET_COMMON_H_

#include "nnet_dialect.h"

namespace nnet {

// How tensors travel between layers (hls4ml 1.x values).
enum io_type { io_parallel = 0, io_stream = 1 };

// How a layer trades multipliers for cycles (hls4ml 1.x values; resource_unrolled is not provided).
// distributed_arithmetic: the config struct's adder_graph(data, acc) forms the products (nnet_dense.h).
enum strategy { latency = 0, resource = 1, distributed_arithmetic = 3 };

// Integer ceiling of a / b, usable in constant expressions.
constexpr unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }

// Sign tests and comparisons, exact for every fixed-point type in both families. ap_fixed's < and >
// can be wrong between a negative signed and a wide unsigned operand (fixed-point.md section 12);
// comparing with the integer 0 never pairs a negative value with an unsigned one, and a
// difference b - a is always signed, so these three never meet that case.
template <class T> inline bool is_negative(const T &x) { return x < 0; }

template <class T> inline bool is_positive(const T &x) { return x > 0; }

template <class A, class B> inline bool greater_than(const A &a, const B &b) { return (b - a) < 0; }

// floor(value / divisor) at the quotient type's LSB, by restoring division: one compare-subtract per
// quotient bit, from weight 1 down to 2^-fraction_bits. Requires 0 <= value <= divisor (exact; the
// ReSOM's normalisation and the routers' Sinkhorn balancing use it).
template <class quotient_T, class remainder_T, unsigned FractionBits>
inline quotient_T exact_divide(remainder_T value, const remainder_T &divisor) {
    NNET_INLINE
    quotient_T quotient = 0;
    quotient_T weight = 1;
    const quotient_T half = 0.5;
    NNET_UNROLL
    for (unsigned bit = 0; bit <= FractionBits; bit++) {
        if (!greater_than(divisor, value)) {
            value = value - divisor;
            quotient = quotient + weight;
        }
        value = value + value;
        weight = weight * half;
    }
    return quotient;
}

// floor(sqrt(square)) on root_T's grid: the largest root with root * root <= square, found bit by bit
// from the top (exact; the SOM's distances and the layer normalization's variance use it).
template <class root_T, class square_T> inline root_T exact_root(const square_T &square) {
    NNET_INLINE
    root_T root = 0;
    NNET_UNROLL
    for (int bit = root_T::width - 1; bit >= 0; bit--) {
        root_T trial = root;
        trial[bit] = 1;
        if (!greater_than(trial * trial, square)) {
            root = trial;
        }
    }
    return root;
}

// ---- the element-wise loop of io_parallel kernels ----------------------------------------------------
// The N values of a tensor, all in parallel (the calling kernel pipelines). An operation is a small
// struct (`relu_op`, `add_op`, ...) whose operator() writes one output value.

// res[i] = op(data[i]) through `op(x, out, i)`; i serves the operations with per-element
// parameters (prelu, batch normalization).
template <unsigned N, class data_T, class res_T, class Op>
inline void elementwise(const data_T data[N], res_T res[N], const Op &op) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned i = 0; i < N; i++) {
        op(data[i], res[i], i);
    }
}

// res[i] = op(data1[i], data2[i]) through `op(a, b, out)`: the two-input form (merge layers).
template <unsigned N, class input1_T, class input2_T, class res_T, class Op>
inline void elementwise(const input1_T data1[N], const input2_T data2[N], res_T res[N], const Op &op) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned i = 0; i < N; i++) {
        op(data1[i], data2[i], res[i]);
    }
}

// out = x: one write into the result type (linear activation, copy).
struct copy_op {
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned) const { out = x; }
};

} // namespace nnet

#endif
