// Convolutions for io_stream, channels last: Conv1D, Conv2D, DepthwiseConv1D, DepthwiseConv2D.
//
// The same kernel nnet::conv and config structs as io_parallel (nnet_conv.h), with streams:
//   data: nnet::stream<data_T>, data_T = nnet::array<input type, n_chan>, one element per input
//         pixel (all its channels), pixels in row-major order, in_height * in_width elements;
//   res:  nnet::stream<res_T>, res_T = nnet::array<result type, n_filt>, one element per output
//         pixel, row-major, out_height * out_width elements.
// Padding must be 0 (the compiler inserts explicit ZeroPadding layers before streaming kernels).
//
// Each input pixel is read exactly once: a line buffer keeps the last (window height - 1) rows,
// a shift register the current window ([kh][kw][c], the layout of a window-sized input). When a
// pixel completes a window on the stride grid, that window is summed by the io_parallel element
// operations (conv_start, conv_products, conv_finish) applied to a window-sized view of the config, so
// every output performs the same writes in the same order (bias, then += over kh, kw, c) as the
// io_parallel kernels: bit for bit the same results, checked by the same numpy references. The
// pixel loop is pipelined at II = reuse_factor with at most ceil(n_weights / RF) - n_zeros / RF
// multipliers (one output pixel per II); `parallelization_factor` and the Latency / Resource choice do not
// change the streaming schedule (distributed arithmetic replaces the multipliers by the adder graph).
#ifndef NNET_CONV_STREAM_H_
#define NNET_CONV_STREAM_H_

#include "nnet_conv.h"
#include "nnet_stream.h"
#include "nnet_types.h"

namespace nnet {

// ---- the sliding window shared by the streaming convolution and pooling kernels -----------------

// Geometry of a window of Height x Width pixels of Chan values sliding over rows of InWidth pixels.
template <unsigned Height, unsigned Width, unsigned InWidth, unsigned Chan> struct stream_window {
    static const unsigned n_lines = Height > 1 ? Height - 1 : 1; // rows kept (1 unused slot if Height == 1)
    static const unsigned line_word = n_lines * Chan;             // one column of the line buffer
    static const unsigned line_size = InWidth * line_word;        // line buffer [iw][row][c]
    static const unsigned window_size = Height * Width * Chan;    // window [kh][kw][c]
};

// Takes in the pixel at column iw (its Chan values): the window shifts one pixel left, its last
// column becomes the pixel's column (rows above from the line buffer, the bottom row the pixel
// itself), and the line buffer keeps that column's lower Height - 1 rows for the next image row.
// Values are copied, never converted. After the pixel (ih, iw), window[(kh, kw)] holds input
// pixel (ih - Height + 1 + kh, iw - Width + 1 + kw) once iw >= Width - 1 and ih >= Height - 1.
template <class T, unsigned Height, unsigned Width, unsigned InWidth, unsigned Chan>
inline void stream_window_shift(const T pixel[Chan],
                                T lines[stream_window<Height, Width, InWidth, Chan>::line_size],
                                T window[stream_window<Height, Width, InWidth, Chan>::window_size], unsigned iw) {
    NNET_INLINE
    typedef stream_window<Height, Width, InWidth, Chan> geometry;
    T *column = lines + iw * geometry::line_word;
    NNET_UNROLL
    for (unsigned kh = 0; kh < Height; kh++) {
        NNET_UNROLL
        for (unsigned kw = 0; kw + 1 < Width; kw++) {
            NNET_UNROLL
            for (unsigned c = 0; c < Chan; c++) {
                window[(kh * Width + kw) * Chan + c] = window[(kh * Width + kw + 1) * Chan + c];
            }
        }
        NNET_UNROLL
        for (unsigned c = 0; c < Chan; c++) {
            window[(kh * Width + Width - 1) * Chan + c] = kh + 1 < Height ? column[kh * Chan + c] : pixel[c];
        }
    }
    // Row kh of the stored column moves up to kh - 1: the column now spans rows ih - Height + 2 .. ih.
    NNET_UNROLL
    for (unsigned kh = 0; kh + 1 < Height; kh++) {
        NNET_UNROLL
        for (unsigned c = 0; c < Chan; c++) {
            column[kh * Chan + c] = window[((kh + 1) * Width + Width - 1) * Chan + c];
        }
    }
}

// Whether the pixel (ih, iw) just taken in completes a window on the stride grid.
template <unsigned Height, unsigned Width, unsigned StrideHeight, unsigned StrideWidth>
inline bool stream_window_ready(unsigned ih, unsigned iw) {
    return ih + 1 >= Height && iw + 1 >= Width && (ih + 1 - Height) % StrideHeight == 0 &&
           (iw + 1 - Width) % StrideWidth == 0;
}

// ---- convolutions ----------------------------------------------------------------------------------

// A 2-D conv config seen through one window: the window is the whole (unpadded) input and there is
// one output pixel, so conv_products(window, ..., pixel 0) is the sum of that output pixel.
template <class CONFIG_T> struct conv_window_config : CONFIG_T {
    static const unsigned in_height = CONFIG_T::filt_height;
    static const unsigned in_width = CONFIG_T::filt_width;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned out_height = 1;
    static const unsigned out_width = 1;
};

template <class data_T, class res_T, class CONFIG_T> struct conv_stream_checks {
    typedef conv_sizes<CONFIG_T> sizes; // the io_parallel checks (output sizes, reuse factor)
    static_assert(CONFIG_T::pad_top == 0 && CONFIG_T::pad_bottom == 0 && CONFIG_T::pad_left == 0 &&
                      CONFIG_T::pad_right == 0,
                  "conv (io_stream): pad_* must be 0; pad with an explicit ZeroPadding layer before the layer");
    static_assert(data_T::size == CONFIG_T::n_chan, "conv (io_stream): data_T must be nnet::array<T, n_chan>");
    static_assert(res_T::size == CONFIG_T::n_filt, "conv (io_stream): res_T must be nnet::array<T, n_filt>");
    static const unsigned multiplier_limit =
        sizes::block_factor - CONFIG_T::n_zeros / CONFIG_T::reuse_factor; // one output pixel per II
};

// The line-buffer schedule the HLS tools see (and a C-simulation on other fixed-point headers).
template <class data_T, class res_T, class CONFIG_T>
void conv_windows(stream<data_T> &data, stream<res_T> &res,
                  const typename CONFIG_T::weight_t weights[conv_sizes<CONFIG_T>::n_weights],
                  const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt]) {
    NNET_INLINE
    typedef typename data_T::value_type data_elem;
    typedef conv_stream_checks<data_T, res_T, CONFIG_T> checks;
    typedef stream_window<CONFIG_T::filt_height, CONFIG_T::filt_width, CONFIG_T::in_width, CONFIG_T::n_chan> geometry;
    constexpr unsigned multiplier_limit = checks::multiplier_limit;
    constexpr unsigned line_word = geometry::line_word;
    // Static: zero-initialized storage (read before it is first written, and never used then).
    NNET_PERSISTENT data_elem lines[geometry::line_size];
    NNET_ARRAY_RESHAPE_CYCLIC(lines, line_word)
    (void)line_word; // read by the pragma only
    NNET_PERSISTENT data_elem window[geometry::window_size];
    NNET_ARRAY_PARTITION_COMPLETE(window)
    for (unsigned ih = 0; ih < CONFIG_T::in_height; ih++) {
        for (unsigned iw = 0; iw < CONFIG_T::in_width; iw++) {
            NNET_PIPELINE(CONFIG_T::reuse_factor)
            NNET_ALLOCATION_MUL(multiplier_limit)
            const data_T pixel = data.read();
            stream_window_shift<data_elem, CONFIG_T::filt_height, CONFIG_T::filt_width, CONFIG_T::in_width,
                                CONFIG_T::n_chan>(pixel.data, lines, window, iw);
            if (stream_window_ready<CONFIG_T::filt_height, CONFIG_T::filt_width, CONFIG_T::stride_height,
                                    CONFIG_T::stride_width>(ih, iw)) {
                res_T out;
                conv_output_pixel<data_elem, typename res_T::value_type, conv_window_config<CONFIG_T>>(
                    window, weights, biases, out.data, 0);
                res.write(out);
            }
        }
    }
}

#ifdef NNET_CSIM_FAST
// C-simulation only (nnet_csim_fast.h): the layer runs after its producer has written the whole image,
// so the image is read at once and every output pixel, in stream order, is the io_parallel
// conv_output_pixel on it: the taps and the writes of the window above (conv_window_config is this
// config seen through one window), without shifting a window and a line buffer per input pixel.
template <class data_T, class res_T, class CONFIG_T>
void conv_whole_image(stream<data_T> &data, stream<res_T> &res,
                      const typename CONFIG_T::weight_t weights[conv_sizes<CONFIG_T>::n_weights],
                      const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt]) {
    typedef typename data_T::value_type data_elem;
    typedef conv_sizes<CONFIG_T> sizes;
    (void)conv_stream_checks<data_T, res_T, CONFIG_T>::multiplier_limit;
    data_elem *const pixels = csim_fast::persistent_buffer<data_elem, sizes::n_in>();
    read_whole<sizes::n_in>(data, pixels);
    for (unsigned pixel = 0; pixel < sizes::n_pixels; pixel++) {
        res_T out;
        conv_output_pixel<data_elem, typename res_T::value_type, CONFIG_T>(pixels, weights, biases, out.data, pixel);
        res.write(out);
    }
}
#endif

// The call the lowering emits for the four convolution layers (io_stream).
template <class data_T, class res_T, class CONFIG_T>
void conv(stream<data_T> &data, stream<res_T> &res,
          const typename CONFIG_T::weight_t weights[conv_sizes<CONFIG_T>::n_weights],
          const typename CONFIG_T::bias_t biases[CONFIG_T::n_filt]) {
#ifdef NNET_CSIM_FAST
    conv_whole_image<data_T, res_T, CONFIG_T>(data, res, weights, biases);
#else
    conv_windows<data_T, res_T, CONFIG_T>(data, res, weights, biases);
#endif
}

} // namespace nnet

#endif
