// Pooling for io_stream, channels last: nnet::pooling (Pooling1D, Pooling2D) and nnet::global_pooling
// (GlobalPooling1D, GlobalPooling2D).
//
// Same names and config structs as the io_parallel kernels (nnet_pooling.h), with streams:
//   data: nnet::stream<data_T>, data_T = nnet::array<input type, n_filt>, one element per input pixel,
//         row-major, in_height * in_width elements;
//   res:  nnet::stream<res_T>, res_T = nnet::array<result type, n_filt>, one element per output pixel,
//         row-major, out_height * out_width elements (global pooling: one element).
// Padding (pad_*, e.g. Keras 'same') is supported as in io_parallel: the window reduces only its valid
// (non-padded) inputs and an average divides by their number, which is smaller at the borders.
//
// Windowed pooling slides the window of nnet_conv_stream.h (line buffer + shift register, each
// input pixel read once) over the padded image: every padded position is one pipelined step, which
// reads the next input pixel when the position is inside the image and shifts in a placeholder
// (never reduced) otherwise. A completed window on the stride grid is reduced by the io_parallel
// element operation pool_window on a window-sized view of the config (pool_window_config), pointed
// at the window's first valid input and given a pixel index whose span is the window's valid rows
// and columns: the same reduction, the same order (kh, kw) over the same valid inputs, the same
// count and the same writes as io_parallel, hence the same bits. Global pooling keeps one running
// state per channel and visits the pixels in position order, as io_parallel does. The pixel loop is
// pipelined at II = reuse_factor.
#ifndef NNET_POOLING_STREAM_H_
#define NNET_POOLING_STREAM_H_

#include "nnet_conv_stream.h"
#include "nnet_pooling.h"
#include "nnet_types.h"

namespace nnet {

// A 2-D pooling config seen through one window of the line buffer (row stride pool_width). Its
// "image" is the pool_height x pool_width window with pool_height - 1 / pool_width - 1 rows / columns
// of padding before it, stride 1: output pixel (rows - 1) * pool_width + (cols - 1) of this view
// reduces rows x cols inputs starting at the data pointer, in pool_window's (kh, kw) order.
template <class CONFIG_T> struct pool_window_config : CONFIG_T {
    static const unsigned in_height = CONFIG_T::pool_height;
    static const unsigned in_width = CONFIG_T::pool_width;
    static const unsigned pad_top = CONFIG_T::pool_height - 1;
    static const unsigned pad_bottom = 0;
    static const unsigned pad_left = CONFIG_T::pool_width - 1;
    static const unsigned pad_right = 0;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned out_height = CONFIG_T::pool_height;
    static const unsigned out_width = CONFIG_T::pool_width;
};

// The padded image the window slides over.
template <class CONFIG_T> struct pooling_stream_padded {
    static const unsigned height = CONFIG_T::pad_top + CONFIG_T::in_height + CONFIG_T::pad_bottom;
    static const unsigned width = CONFIG_T::pad_left + CONFIG_T::in_width + CONFIG_T::pad_right;
};

template <class data_T, class res_T, class CONFIG_T> struct pooling_stream_checks {
    static const unsigned n_pixels = pooling_sizes<CONFIG_T>::n_pixels; // the io_parallel checks
    static_assert(data_T::size == CONFIG_T::n_filt, "pooling (io_stream): data_T must be nnet::array<T, n_filt>");
    static_assert(res_T::size == CONFIG_T::n_filt, "pooling (io_stream): res_T must be nnet::array<T, n_filt>");
};

// The line-buffer schedule the HLS tools see (and a C-simulation on other fixed-point headers).
template <class data_T, class res_T, typename CONFIG_T> void pooling_windows(stream<data_T> &data, stream<res_T> &res) {
    NNET_INLINE
    typedef typename data_T::value_type data_elem;
    typedef typename pool_reduce<CONFIG_T::pool_op, data_elem, CONFIG_T>::type reduce;
    typedef pooling_stream_checks<data_T, res_T, CONFIG_T> checks;
    static_assert(checks::n_pixels >= 1, "pooling (io_stream): no output pixel");
    typedef pooling_stream_padded<CONFIG_T> padded;
    typedef stream_window<CONFIG_T::pool_height, CONFIG_T::pool_width, padded::width, CONFIG_T::n_filt> geometry;
    constexpr unsigned line_word = geometry::line_word;
    // Static: zero-initialized storage (read before it is first written, and never used then).
    NNET_PERSISTENT data_elem lines[geometry::line_size];
    NNET_ARRAY_RESHAPE_CYCLIC(lines, line_word)
    (void)line_word; // read by the pragma only
    NNET_PERSISTENT data_elem window[geometry::window_size];
    NNET_ARRAY_PARTITION_COMPLETE(window)
    for (unsigned ph = 0; ph < padded::height; ph++) {
        for (unsigned pw = 0; pw < padded::width; pw++) {
            NNET_PIPELINE(CONFIG_T::reuse_factor)
            // (unsigned: a position before the image wraps around to a large value)
            const bool inside =
                ph - CONFIG_T::pad_top < CONFIG_T::in_height && pw - CONFIG_T::pad_left < CONFIG_T::in_width;
            data_T pixel;
            if (inside) {
                pixel = data.read();
            } else {
                NNET_UNROLL
                for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
                    pixel[c] = 0; // padding: shifted through, never reduced
                }
            }
            stream_window_shift<data_elem, CONFIG_T::pool_height, CONFIG_T::pool_width, padded::width,
                                CONFIG_T::n_filt>(pixel.data, lines, window, pw);
            if (stream_window_ready<CONFIG_T::pool_height, CONFIG_T::pool_width, CONFIG_T::stride_height,
                                    CONFIG_T::stride_width>(ph, pw)) {
                // The window covers padded rows / columns from (top, left); its valid inputs are the
                // input rows / columns of valid_span, at window offset first + pad - start.
                const unsigned top = ph + 1 - CONFIG_T::pool_height, left = pw + 1 - CONFIG_T::pool_width;
                const pool_span rows = valid_span(top, CONFIG_T::pool_height, CONFIG_T::pad_top, CONFIG_T::in_height);
                const pool_span cols = valid_span(left, CONFIG_T::pool_width, CONFIG_T::pad_left, CONFIG_T::in_width);
                const unsigned offset = ((rows.first + CONFIG_T::pad_top - top) * CONFIG_T::pool_width +
                                         (cols.first + CONFIG_T::pad_left - left)) *
                                        CONFIG_T::n_filt;
                const unsigned view_pixel = (rows.count - 1) * CONFIG_T::pool_width + (cols.count - 1);
                res_T out;
                NNET_UNROLL
                for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
                    pool_window<data_elem, typename res_T::value_type, pool_window_config<CONFIG_T>, reduce>(
                        window + offset, out[c], view_pixel, c);
                }
                res.write(out);
            }
        }
    }
}

#ifdef NNET_CSIM_FAST
// C-simulation only (nnet_csim_fast.h): the layer runs after its producer has written the whole image,
// so the image is read at once and every output pixel, in stream order, is io_parallel's pool_window
// on it: the same valid inputs, order and count as the window above, without the line buffer.
template <class data_T, class res_T, typename CONFIG_T> void pooling_whole_image(stream<data_T> &data, stream<res_T> &res) {
    typedef typename data_T::value_type data_elem;
    typedef typename pool_reduce<CONFIG_T::pool_op, data_elem, CONFIG_T>::type reduce;
    typedef pooling_stream_checks<data_T, res_T, CONFIG_T> checks;
    static_assert(checks::n_pixels >= 1, "pooling (io_stream): no output pixel");
    data_elem *const pixels = csim_fast::persistent_buffer<data_elem, pooling_sizes<CONFIG_T>::n_in>();
    read_whole<pooling_sizes<CONFIG_T>::n_in>(data, pixels);
    for (unsigned pixel = 0; pixel < checks::n_pixels; pixel++) {
        res_T out;
        if constexpr (CONFIG_T::pool_op == pool_max && csim_fast::machine_raw<data_elem>::value) {
            pool_max_pixel_raw<data_elem, typename res_T::value_type, CONFIG_T>(pixels, out.data, pixel);
        } else {
            for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
                pool_window<data_elem, typename res_T::value_type, CONFIG_T, reduce>(pixels, out[c], pixel, c);
            }
        }
        res.write(out);
    }
}
#endif

template <class data_T, class res_T, typename CONFIG_T> void pooling(stream<data_T> &data, stream<res_T> &res) {
#ifdef NNET_CSIM_FAST
    pooling_whole_image<data_T, res_T, CONFIG_T>(data, res);
#else
    pooling_windows<data_T, res_T, CONFIG_T>(data, res);
#endif
}

template <class data_T, class res_T, typename CONFIG_T>
void global_pooling(stream<data_T> &data, stream<res_T> &res) {
    typedef typename data_T::value_type data_elem;
    typedef typename pool_reduce<CONFIG_T::pool_op, data_elem, CONFIG_T>::type reduce;
    static_assert(data_T::size == CONFIG_T::n_filt,
                  "global pooling (io_stream): data_T must be nnet::array<T, n_filt>");
    static_assert(res_T::size == CONFIG_T::n_filt, "global pooling (io_stream): res_T must be nnet::array<T, n_filt>");
    const unsigned n_positions = CONFIG_T::in_height * CONFIG_T::in_width;
    typename reduce::state_t state[CONFIG_T::n_filt];
    NNET_ARRAY_PARTITION_COMPLETE(state)
    for (unsigned position = 0; position < n_positions; position++) {
        NNET_PIPELINE(CONFIG_T::reuse_factor)
        const data_T pixel = data.read();
        NNET_UNROLL
        for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
            if (position == 0) {
                reduce::start(state[c], pixel[c]);
            }
            reduce::add(state[c], pixel[c]);
        }
    }
    res_T out;
    NNET_UNROLL
    for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
        reduce::finish(state[c], int(n_positions), out[c]);
    }
    res.write(out);
}

} // namespace nnet

#endif
