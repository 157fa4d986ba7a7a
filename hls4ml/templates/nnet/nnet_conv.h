// Convolutions for io_parallel, channels last: Conv1D, Conv2D, DepthwiseConv1D, DepthwiseConv2D.
//
// Arithmetic (every strategy, reuse factor and parallelization factor, bit for bit; docs/kernels.md):
//   for every output pixel (oh, ow) and output channel f:
//     acc = (accum_t) bias[f]
//     for kh, kw, c in this order: acc += in[ih, iw, c] * w[kh, kw, c, f]    (skipping padded taps)
//     res[oh, ow, f] = acc
// with ih = oh * stride_height + kh - pad_top, iw = ow * stride_width + kw - pad_left. Products are
// exact, each += is a write into accum_t, the last assignment a write into res_T. A padded tap
// would add an exact 0 to a value already in accum_t, which changes nothing, so it is skipped.
// Depthwise: output channel f = c * depth_multiplier + m reads input channel c only, with the
// weight w[kh, kw, c, m]; its sum runs over kh, kw.
//
// Layouts (row-major, the Keras ones): input [in_height][in_width][n_chan]; output
// [out_height][out_width][n_filt]; conv weights [filt_height][filt_width][n_chan][n_filt];
// depthwise weights [filt_height][filt_width][n_chan][depth_multiplier]; biases [n_filt].
//
// One kernel serves all four layers, nnet::conv<data_T, res_T, CONFIG_T>; the config says the rest
// at compile time: a 1-D config is a 2-D one of height 1 (conv1d_config sets the height members),
// a depthwise one has `depthwise = true` (from its base), and `strategy` picks the Latency or the
// Resource loop.
#ifndef NNET_CONV_H_
#define NNET_CONV_H_

#include "nnet_common.h"
#include "nnet_csim_fast.h"

namespace nnet {

struct conv1d_config {
    // Required typedefs: accum_t, weight_t, bias_t.
    static const bool depthwise = false;
    static const unsigned in_width = 10;
    static const unsigned n_chan = 1;
    static const unsigned filt_width = 1;
    static const unsigned n_filt = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_width = 10; // (pad_left + in_width + pad_right - filt_width) / stride_width + 1
    static const unsigned io_type = io_parallel;
    static const unsigned strategy = latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1; // output pixels computed in parallel
    static const unsigned n_zeros = 0;                // zero weights, only lower the multiplier limit
    // The height of a 1-D layer: one row, a window of one row, no padding.
    static const unsigned in_height = 1;
    static const unsigned filt_height = 1;
    static const unsigned stride_height = 1;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned out_height = 1;
};

// A 2-D layer sets the height members too (filt_height, stride_height, pad_top, pad_bottom).
struct conv2d_config : conv1d_config {
    static const unsigned in_height = 10;
    static const unsigned out_height = 10; // (pad_top + in_height + pad_bottom - filt_height) / stride_height + 1
};

// Depthwise: n_filt must be n_chan * depth_multiplier.
struct depthwise_conv1d_config : conv1d_config {
    static const bool depthwise = true;
    static const unsigned depth_multiplier = 1;
};

struct depthwise_conv2d_config : conv2d_config {
    static const bool depthwise = true;
    static const unsigned depth_multiplier = 1;
};

// Padded coordinate `x` lies on the input when pad <= x < pad + n (unsigned wrap-around makes a
// single comparison of it).
inline bool on_input(unsigned x, unsigned pad, unsigned n) { return x - pad < n; }

// Which input channel weight row q of a window position feeds into output channel f.
template <class CONFIG_T, bool Depthwise = CONFIG_T::depthwise> struct conv_channels {
    static const unsigned rows_per_position = CONFIG_T::n_chan; // weight rows (of n_filt) per (kh, kw)
    static unsigned channel(unsigned q, unsigned) { return q; }
};

template <class CONFIG_T> struct conv_channels<CONFIG_T, true> {
    static const unsigned rows_per_position = 1;
    static unsigned channel(unsigned, unsigned f) { return f / CONFIG_T::depth_multiplier; }
    static_assert(CONFIG_T::n_filt == CONFIG_T::n_chan * CONFIG_T::depth_multiplier,
                  "depthwise conv: n_filt must be n_chan * depth_multiplier");
};

// Sizes derived from a 2-D config: the weight "matrix" has n_weights / n_filt rows and n_filt
// columns; reuse_factor and n_zeros mean what they mean for dense, per output pixel, and
// parallelization_factor pixels are computed at once.
template <class CONFIG_T> struct conv_sizes {
    static const unsigned n_pixels = CONFIG_T::out_height * CONFIG_T::out_width;
    static const unsigned n_partitions = n_pixels / CONFIG_T::parallelization_factor;
    static const unsigned n_in = CONFIG_T::in_height * CONFIG_T::in_width * CONFIG_T::n_chan;
    static const unsigned n_out = n_pixels * CONFIG_T::n_filt;
    static const unsigned n_weights = CONFIG_T::filt_height * CONFIG_T::filt_width *
                                      conv_channels<CONFIG_T>::rows_per_position * CONFIG_T::n_filt;
    static const unsigned block_factor = ceil_div(n_weights, CONFIG_T::reuse_factor);
    static const unsigned multiplier_limit =
        CONFIG_T::parallelization_factor * (block_factor - CONFIG_T::n_zeros / CONFIG_T::reuse_factor);
    static const bool blocks_are_full = n_weights % CONFIG_T::reuse_factor == 0;
    static_assert(CONFIG_T::out_width ==
                      (CONFIG_T::pad_left + CONFIG_T::in_width + CONFIG_T::pad_right - CONFIG_T::filt_width) /
                              CONFIG_T::stride_width +
                          1,
                  "conv: out_width must be (pad_left + in_width + pad_right - filt_width) / stride_width + 1");
    static_assert(CONFIG_T::out_height ==
                      (CONFIG_T::pad_top + CONFIG_T::in_height + CONFIG_T::pad_bottom - CONFIG_T::filt_height) /
                              CONFIG_T::stride_height +
                          1,
                  "conv: out_height must be (pad_top + in_height + pad_bottom - filt_height) / stride_height + 1");
    static_assert(CONFIG_T::parallelization_factor >= 1 && n_pixels % CONFIG_T::parallelization_factor == 0,
                  "conv: parallelization_factor must divide out_height * out_width");
    static_assert(CONFIG_T::reuse_factor >= 1 && CONFIG_T::reuse_factor <= n_weights,
                  "conv: reuse_factor must be in [1, number of weights]");
};

template <class CONFIG_T>
inline void conv_start(const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt],
                       typename CONFIG_T::accum_t acc[CONFIG_T::n_filt]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned f = 0; f < CONFIG_T::n_filt; f++) {
        acc[f] = biases[f];
    }
}

template <class res_T, class CONFIG_T>
inline void conv_finish(const typename CONFIG_T::accum_t acc[CONFIG_T::n_filt], res_T *res) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned f = 0; f < CONFIG_T::n_filt; f++) {
        res[f] = acc[f];
    }
}

// The whole sum of one output pixel, weights in storage order (kh, kw, row, f).
template <class data_T, class CONFIG_T>
inline void conv_pixel(const data_T *data, const typename CONFIG_T::weight_t *weights,
                       typename CONFIG_T::accum_t acc[CONFIG_T::n_filt], unsigned pixel) {
    NNET_INLINE
    typedef conv_channels<CONFIG_T> channels;
    const unsigned row0 = (pixel / CONFIG_T::out_width) * CONFIG_T::stride_height;
    const unsigned col0 = (pixel % CONFIG_T::out_width) * CONFIG_T::stride_width;
    NNET_UNROLL
    for (unsigned kh = 0; kh < CONFIG_T::filt_height; kh++) {
        NNET_UNROLL
        for (unsigned kw = 0; kw < CONFIG_T::filt_width; kw++) {
            if (on_input(row0 + kh, CONFIG_T::pad_top, CONFIG_T::in_height) &&
                on_input(col0 + kw, CONFIG_T::pad_left, CONFIG_T::in_width)) {
                const unsigned ih = row0 + kh - CONFIG_T::pad_top, iw = col0 + kw - CONFIG_T::pad_left;
                const data_T *in = data + (ih * CONFIG_T::in_width + iw) * CONFIG_T::n_chan;
                const unsigned position = kh * CONFIG_T::filt_width + kw;
                NNET_UNROLL
                for (unsigned q = 0; q < channels::rows_per_position; q++) {
                    const unsigned row = position * channels::rows_per_position + q;
                    NNET_UNROLL
                    for (unsigned f = 0; f < CONFIG_T::n_filt; f++) {
                        acc[f] += in[channels::channel(q, f)] * weights[row * CONFIG_T::n_filt + f];
                    }
                }
            }
        }
    }
}

// The products of one output pixel added into acc: conv_pixel, or for distributed arithmetic the
// config's generated adder_graph (nnet_dense.h) applied to the pixel's window [kh][kw][c], padded taps
// as exact zeros (which add nothing, as conv_pixel's skipped taps). A specialisation, because only a
// distributed-arithmetic config has an adder_graph.
template <class data_T, class CONFIG_T, bool Distributed = CONFIG_T::strategy == distributed_arithmetic>
struct conv_products {
    static void add(const data_T *data, const typename CONFIG_T::weight_t *weights,
                    typename CONFIG_T::accum_t acc[CONFIG_T::n_filt], unsigned pixel) {
        NNET_INLINE
        conv_pixel<data_T, CONFIG_T>(data, weights, acc, pixel);
    }
};

template <class data_T, class CONFIG_T> struct conv_products<data_T, CONFIG_T, true> {
    static const unsigned window_size = CONFIG_T::filt_height * CONFIG_T::filt_width * CONFIG_T::n_chan;
    static void add(const data_T *data, const typename CONFIG_T::weight_t *,
                    typename CONFIG_T::accum_t acc[CONFIG_T::n_filt], unsigned pixel) {
        NNET_INLINE
        const unsigned row0 = (pixel / CONFIG_T::out_width) * CONFIG_T::stride_height;
        const unsigned col0 = (pixel % CONFIG_T::out_width) * CONFIG_T::stride_width;
        data_T window[window_size];
        NNET_ARRAY_PARTITION_COMPLETE(window)
        NNET_UNROLL
        for (unsigned kh = 0; kh < CONFIG_T::filt_height; kh++) {
            NNET_UNROLL
            for (unsigned kw = 0; kw < CONFIG_T::filt_width; kw++) {
                const bool inside = on_input(row0 + kh, CONFIG_T::pad_top, CONFIG_T::in_height) &&
                                    on_input(col0 + kw, CONFIG_T::pad_left, CONFIG_T::in_width);
                const unsigned ih = row0 + kh - CONFIG_T::pad_top, iw = col0 + kw - CONFIG_T::pad_left;
                NNET_UNROLL
                for (unsigned c = 0; c < CONFIG_T::n_chan; c++) {
                    const unsigned tap = (kh * CONFIG_T::filt_width + kw) * CONFIG_T::n_chan + c;
                    window[tap] = inside ? data[(ih * CONFIG_T::in_width + iw) * CONFIG_T::n_chan + c] : data_T(0);
                }
            }
        }
        CONFIG_T::adder_graph(window, acc);
    }
};

#ifdef NNET_CSIM_FAST
// One weight row of a window position added into the accumulators (conv_pixel_integer's inner loop).
template <class mac, class CONFIG_T, class data_raw, class weight_raw>
inline void conv_row_integer(const data_raw *in, const weight_raw *row, unsigned q, typename mac::lane *acc) {
    for (unsigned f = 0; f < CONFIG_T::n_filt; f++)
        acc[f] += mac::product(in[conv_channels<CONFIG_T>::channel(q, f)], row[f]);
}

// C-simulation only (nnet_csim_fast.h): conv_start, conv_pixel and conv_finish of one output pixel on
// the raw integers, the same taps in the same order, when csim_fast::integer_mac allows it.
template <class data_T, class res_T, class CONFIG_T>
inline void conv_pixel_integer(const data_T *data, const typename CONFIG_T::weight_t *weights,
                               const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt], res_T *res, unsigned pixel) {
    typedef conv_channels<CONFIG_T> channels;
    typedef typename CONFIG_T::accum_t accum_t;
    typedef csim_fast::integer_mac<data_T, typename CONFIG_T::weight_t, accum_t> mac;
    typename mac::lane acc[CONFIG_T::n_filt];
    for (unsigned f = 0; f < CONFIG_T::n_filt; f++)
        acc[f] = typename mac::lane(accum_t(biases[f]).raw_);
    const auto *weight_raw = csim_fast::raw_values(weights);
    const unsigned row0 = (pixel / CONFIG_T::out_width) * CONFIG_T::stride_height;
    const unsigned col0 = (pixel % CONFIG_T::out_width) * CONFIG_T::stride_width;
    for (unsigned kh = 0; kh < CONFIG_T::filt_height; kh++) {
        for (unsigned kw = 0; kw < CONFIG_T::filt_width; kw++) {
            if (!on_input(row0 + kh, CONFIG_T::pad_top, CONFIG_T::in_height) ||
                !on_input(col0 + kw, CONFIG_T::pad_left, CONFIG_T::in_width))
                continue;
            const unsigned ih = row0 + kh - CONFIG_T::pad_top, iw = col0 + kw - CONFIG_T::pad_left;
            const auto *in = csim_fast::raw_values(data + (ih * CONFIG_T::in_width + iw) * CONFIG_T::n_chan);
            const unsigned position = kh * CONFIG_T::filt_width + kw;
            const auto *rows = weight_raw + position * channels::rows_per_position * CONFIG_T::n_filt;
            if constexpr (CONFIG_T::io_type == io_stream) {
                // The loop's own steps were a fifth of a small io_stream layer's work: unrolled (g++ only
                // reads this build). Not in io_parallel, where g++ then left the (padded) pixels unvectorised.
#pragma GCC unroll 16
                for (unsigned q = 0; q < channels::rows_per_position; q++)
                    conv_row_integer<mac, CONFIG_T>(in, rows + q * CONFIG_T::n_filt, q, acc);
            } else {
                for (unsigned q = 0; q < channels::rows_per_position; q++)
                    conv_row_integer<mac, CONFIG_T>(in, rows + q * CONFIG_T::n_filt, q, acc);
            }
        }
    }
    for (unsigned f = 0; f < CONFIG_T::n_filt; f++)
        res[f] = csim_fast::accum_from_word<accum_t>(acc[f]);
}
#endif

// One output pixel: its biases, its whole sum and its write into res_T (io_parallel and io_stream).
template <class data_T, class res_T, class CONFIG_T>
inline void conv_output_pixel(const data_T *data, const typename CONFIG_T::weight_t *weights,
                              const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt], res_T *res, unsigned pixel) {
    NNET_INLINE
#ifdef NNET_CSIM_FAST
    if constexpr (CONFIG_T::strategy != distributed_arithmetic &&
                  csim_fast::integer_mac<data_T, typename CONFIG_T::weight_t, typename CONFIG_T::accum_t>::enabled) {
        conv_pixel_integer<data_T, res_T, CONFIG_T>(data, weights, biases, res, pixel);
        return;
    }
#endif
    typename CONFIG_T::accum_t acc[CONFIG_T::n_filt];
    NNET_ARRAY_PARTITION_COMPLETE(acc)
    conv_start<CONFIG_T>(biases, acc);
    conv_products<data_T, CONFIG_T>::add(data, weights, acc, pixel);
    conv_finish<res_T, CONFIG_T>(acc, res);
}

// One weight k of one output pixel: the same += as conv_pixel performs for that weight.
template <class data_T, class CONFIG_T>
inline void conv_tap(const data_T *data, const typename CONFIG_T::weight_t *weights,
                     typename CONFIG_T::accum_t acc[CONFIG_T::n_filt], unsigned pixel, unsigned k) {
    NNET_INLINE
    typedef conv_channels<CONFIG_T> channels;
    const unsigned f = k % CONFIG_T::n_filt, row = k / CONFIG_T::n_filt;
    const unsigned q = row % channels::rows_per_position, position = row / channels::rows_per_position;
    const unsigned ph = (pixel / CONFIG_T::out_width) * CONFIG_T::stride_height + position / CONFIG_T::filt_width;
    const unsigned pw = (pixel % CONFIG_T::out_width) * CONFIG_T::stride_width + position % CONFIG_T::filt_width;
    if (on_input(ph, CONFIG_T::pad_top, CONFIG_T::in_height) && on_input(pw, CONFIG_T::pad_left, CONFIG_T::in_width)) {
        const unsigned pixel_in = (ph - CONFIG_T::pad_top) * CONFIG_T::in_width + (pw - CONFIG_T::pad_left);
        acc[f] += data[pixel_in * CONFIG_T::n_chan + channels::channel(q, f)] * weights[k];
    }
}

// Latency: n_partitions groups of parallelization_factor pixels; the group loop is pipelined at
// II = reuse_factor, every multiplication of a group unrolled, with at most
// parallelization_factor * ceil(n_weights / reuse_factor) multipliers.
template <class data_T, class res_T, typename CONFIG_T>
void conv_latency(const data_T data[conv_sizes<CONFIG_T>::n_in], res_T res[conv_sizes<CONFIG_T>::n_out],
                  const typename CONFIG_T::weight_t weights[conv_sizes<CONFIG_T>::n_weights],
                  const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt]) {
    typedef conv_sizes<CONFIG_T> sizes;
    constexpr unsigned multiplier_limit = sizes::multiplier_limit;
    for (unsigned part = 0; part < sizes::n_partitions; part++) {
        NNET_PIPELINE(CONFIG_T::reuse_factor)
        NNET_ALLOCATION_MUL(multiplier_limit)
        NNET_UNROLL
        for (unsigned p = 0; p < CONFIG_T::parallelization_factor; p++) {
            const unsigned pixel = part * CONFIG_T::parallelization_factor + p;
            conv_output_pixel<data_T, res_T, CONFIG_T>(data, weights, biases, res + pixel * CONFIG_T::n_filt, pixel);
        }
    }
}

// Resource: per group, reuse_factor steps pipelined at II = 1; step s multiplies, for each pixel of
// the group, the block_factor consecutive weights k = s * block_factor ... (one word of the
// cyclically reshaped weight array), exactly as dense_resource. Walking the weights in storage
// order keeps every output's taps in (kh, kw, c) order: the same += sequence as Latency.
template <class data_T, class res_T, typename CONFIG_T>
void conv_resource(const data_T data[conv_sizes<CONFIG_T>::n_in], res_T res[conv_sizes<CONFIG_T>::n_out],
                   const typename CONFIG_T::weight_t weights[conv_sizes<CONFIG_T>::n_weights],
                   const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt]) {
    typedef conv_sizes<CONFIG_T> sizes;
    constexpr unsigned block_factor = sizes::block_factor;
    NNET_ARRAY_RESHAPE_CYCLIC(weights, block_factor)
    for (unsigned part = 0; part < sizes::n_partitions; part++) {
        typename CONFIG_T::accum_t acc[CONFIG_T::parallelization_factor][CONFIG_T::n_filt];
        NNET_ARRAY_PARTITION_COMPLETE(acc)
        NNET_UNROLL
        for (unsigned p = 0; p < CONFIG_T::parallelization_factor; p++) {
            conv_start<CONFIG_T>(biases, acc[p]);
        }
        for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
            NNET_PIPELINE(1)
            NNET_UNROLL
            for (unsigned p = 0; p < CONFIG_T::parallelization_factor; p++) {
                NNET_UNROLL
                for (unsigned m = 0; m < block_factor; m++) {
                    const unsigned k = step * block_factor + m;
                    if (sizes::blocks_are_full || k < sizes::n_weights) {
                        conv_tap<data_T, CONFIG_T>(data, weights, acc[p], part * CONFIG_T::parallelization_factor + p,
                                                   k);
                    }
                }
            }
        }
        NNET_UNROLL
        for (unsigned p = 0; p < CONFIG_T::parallelization_factor; p++) {
            const unsigned pixel = part * CONFIG_T::parallelization_factor + p;
            conv_finish<res_T, CONFIG_T>(acc[p], res + pixel * CONFIG_T::n_filt);
        }
    }
}

// The call the lowering emits for Conv1D, Conv2D, DepthwiseConv1D and DepthwiseConv2D; the
// strategy is a compile-time constant of the config. C-simulation runs the Latency loop for both
// strategies (same writes in the same order; conv_resource is tested against it bit for bit in
// test/csim/nnet), as nnet::dense does.
template <class data_T, class res_T, typename CONFIG_T>
void conv(const data_T data[conv_sizes<CONFIG_T>::n_in], res_T res[conv_sizes<CONFIG_T>::n_out],
          const typename CONFIG_T::weight_t weights[conv_sizes<CONFIG_T>::n_weights],
          const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt]) {
    NNET_INLINE
#ifdef __SYNTHESIS__
    if (CONFIG_T::strategy == resource) {
        conv_resource<data_T, res_T, CONFIG_T>(data, res, weights, biases);
        return;
    }
#endif
    conv_latency<data_T, res_T, CONFIG_T>(data, res, weights, biases);
}

} // namespace nnet

#endif
