// Dense (fully connected) layer for io_parallel: res = data x weights + biases.
//
// Arithmetic (both strategies, bit for bit; docs/kernels.md):
//   acc_j = (accum_t) bias_j;  for i = 0 .. n_in-1: acc_j += data_i * w[i * n_out + j];  res_j = acc_j
// Each product is exact (full precision); each += is a write into accum_t with its rounding and
// overflow modes; the final assignment is a write into res_T. Weights are row-major [n_in][n_out]
// (the Keras kernel layout) for both strategies.
#ifndef NNET_DENSE_H_
#define NNET_DENSE_H_

#include "nnet_common.h"
#include "nnet_csim_fast.h"

namespace nnet {

struct dense_config {
    // Required typedefs: accum_t, weight_t, bias_t.
    static const unsigned n_in = 10;
    static const unsigned n_out = 10;
    static const unsigned io_type = io_parallel;
    static const unsigned strategy = latency;
    static const unsigned reuse_factor = 1;
    static const unsigned n_zeros = 0; // zero weights, only lower the multiplier limit
};

// Sizes derived from the config: the number of weights, how many of them each of the reuse_factor
// steps multiplies, and the multiplier budget (each multiplier is used reuse_factor times).
template <class CONFIG_T> struct dense_sizes {
    static const unsigned n_weights = CONFIG_T::n_in * CONFIG_T::n_out;
    static const unsigned block_factor = ceil_div(n_weights, CONFIG_T::reuse_factor);
    static const unsigned multiplier_limit = block_factor - CONFIG_T::n_zeros / CONFIG_T::reuse_factor;
    static const bool blocks_are_full = n_weights % CONFIG_T::reuse_factor == 0;
};

template <class CONFIG_T>
inline void dense_start(const typename CONFIG_T::bias_t biases[CONFIG_T::n_out],
                        typename CONFIG_T::accum_t acc[CONFIG_T::n_out]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_out; j++) {
        acc[j] = biases[j];
    }
}

template <class res_T, class CONFIG_T>
inline void dense_finish(const typename CONFIG_T::accum_t acc[CONFIG_T::n_out], res_T res[CONFIG_T::n_out]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_out; j++) {
        res[j] = acc[j];
    }
}

// Latency: every multiplication unrolled, the function pipelined at II = reuse_factor with at most
// ceil(n_in * n_out / reuse_factor) multipliers, so each multiplier is shared reuse_factor times.
template <class data_T, class res_T, typename CONFIG_T>
void dense_latency(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                   const typename CONFIG_T::weight_t weights[CONFIG_T::n_in * CONFIG_T::n_out],
                   const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    constexpr unsigned multiplier_limit = dense_sizes<CONFIG_T>::multiplier_limit;
    NNET_ALLOCATION_MUL(multiplier_limit)
    typename CONFIG_T::accum_t acc[CONFIG_T::n_out];
    NNET_ARRAY_PARTITION_COMPLETE(acc)
    dense_start<CONFIG_T>(biases, acc);
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        NNET_UNROLL
        for (unsigned j = 0; j < CONFIG_T::n_out; j++) {
            acc[j] += data[i] * weights[i * CONFIG_T::n_out + j];
        }
    }
    dense_finish<res_T, CONFIG_T>(acc, res);
}

// Resource: reuse_factor steps pipelined at II = 1, step s multiplying the block of block_factor
// consecutive weights k = s * block_factor .. (s + 1) * block_factor - 1 (one wide word of the
// cyclically reshaped weight array). Walking the weights in order keeps, for every output, the
// inputs in increasing order: the same += sequence as the Latency strategy, so results never
// depend on the reuse factor, even with rounding or saturating accumulators. Any reuse factor
// from 1 to n_in * n_out is valid; when it does not divide n_in * n_out the last block is partial.
template <class data_T, class res_T, typename CONFIG_T>
void dense_resource(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                    const typename CONFIG_T::weight_t weights[CONFIG_T::n_in * CONFIG_T::n_out],
                    const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    typedef dense_sizes<CONFIG_T> sizes;
    constexpr unsigned block_factor = sizes::block_factor;
    NNET_ARRAY_RESHAPE_CYCLIC(weights, block_factor)
    typename CONFIG_T::accum_t acc[CONFIG_T::n_out];
    NNET_ARRAY_PARTITION_COMPLETE(acc)
    dense_start<CONFIG_T>(biases, acc);
    for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned m = 0; m < block_factor; m++) {
            const unsigned k = step * block_factor + m;
            if (sizes::blocks_are_full || k < sizes::n_weights) {
                acc[k % CONFIG_T::n_out] += data[k / CONFIG_T::n_out] * weights[k];
            }
        }
    }
    dense_finish<res_T, CONFIG_T>(acc, res);
}

// Distributed arithmetic: no multiplier; the config's generated adder_graph (a network of shifts and
// additions, exact in every value) adds each output's exact sum of products into acc. Equal to
// dense_latency whenever the lowering accepted the accum type (backends/common/distributed.py): no
// product is rounded, and accum_t wraps or no partial sum can overflow it.
template <class data_T, class res_T, typename CONFIG_T>
void dense_distributed(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                       const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    NNET_PIPELINE(1)
    typename CONFIG_T::accum_t acc[CONFIG_T::n_out];
    NNET_ARRAY_PARTITION_COMPLETE(acc)
    dense_start<CONFIG_T>(biases, acc);
    CONFIG_T::adder_graph(data, acc);
    dense_finish<res_T, CONFIG_T>(acc, res);
}

// Picks the kernel of the config's strategy at compile time: only a distributed-arithmetic config has an
// adder_graph, so the choice is a specialisation rather than an if.
template <class data_T, class res_T, typename CONFIG_T,
          bool Distributed = CONFIG_T::strategy == distributed_arithmetic>
struct dense_kernel {
    static void run(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                    const typename CONFIG_T::weight_t weights[CONFIG_T::n_in * CONFIG_T::n_out],
                    const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
        NNET_INLINE
#ifdef __SYNTHESIS__
        if (CONFIG_T::strategy == resource) {
            dense_resource<data_T, res_T, CONFIG_T>(data, res, weights, biases);
            return;
        }
#endif
#ifdef NNET_CSIM_FAST
        if constexpr (csim_fast::integer_mac<data_T, typename CONFIG_T::weight_t,
                                             typename CONFIG_T::accum_t>::enabled) {
            csim_fast::dense_integer<data_T, res_T, CONFIG_T>(data, res, weights, biases);
            return;
        }
#endif
        dense_latency<data_T, res_T, CONFIG_T>(data, res, weights, biases);
    }
};

template <class data_T, class res_T, typename CONFIG_T> struct dense_kernel<data_T, res_T, CONFIG_T, true> {
    static void run(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                    const typename CONFIG_T::weight_t[CONFIG_T::n_in * CONFIG_T::n_out],
                    const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
        NNET_INLINE
        dense_distributed<data_T, res_T, CONFIG_T>(data, res, biases);
    }
};

// The call the lowering emits; the strategy is a compile-time constant of the config.
// C-simulation runs the Latency loop for Latency and Resource: they perform the same writes in the same
// order (dense_resource is tested against it bit for bit for every reuse factor in test/csim/nnet),
// and the plain loop nest simulates about twice as fast.
template <class data_T, class res_T, typename CONFIG_T>
void dense(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
           const typename CONFIG_T::weight_t weights[CONFIG_T::n_in * CONFIG_T::n_out],
           const typename CONFIG_T::bias_t biases[CONFIG_T::n_out]) {
    NNET_INLINE
    dense_kernel<data_T, res_T, CONFIG_T>::run(data, res, weights, biases);
}

} // namespace nnet

#endif
