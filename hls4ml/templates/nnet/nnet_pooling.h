// Pooling for io_parallel, channels last: nnet::pooling (Pooling1D, Pooling2D: max or average, with
// strides and explicit padding) and nnet::global_pooling (GlobalPooling1D, GlobalPooling2D: over all
// positions).
//
// For every output pixel and channel c, over the window's VALID (non-padded) inputs x, visited in
// (kh, kw) order (global pooling: in position order):
//   max:      m = the first valid input (data_T); m = x when x > m (exact);  res = m
//   average:  sum = 0 (accum_t); sum += x (each a write into accum_t);       res = sum / n
// with n (a C int) the number of valid inputs of that window, which is smaller at padded borders
// (Keras excludes the padding from the average). `sum / n` is the fixed-point quotient: full
// precision except that it keeps accum_t's fraction bits, truncated toward zero; it is written
// into res_T once. With accum_t holding the sum exactly and a few fraction bits more than res_T,
// the result is the exact mean up to res_T's own rounding plus less than one LSB of accum_t.
//
// Layouts: input [in_height][in_width][n_filt], output [out_height][out_width][n_filt] (global:
// [n_filt]). A 1-D layer is the 2-D one of height 1: its config bases set the height members.
#ifndef NNET_POOLING_H_
#define NNET_POOLING_H_

#include "nnet_common.h"
#include "nnet_csim_fast.h"

namespace nnet {

enum pool_op { pool_max = 0, pool_average = 1 };

struct pooling1d_config {
    // Required typedef (average only): accum_t.
    static const unsigned in_width = 10;
    static const unsigned n_filt = 1; // channels
    static const unsigned pool_width = 2;
    static const unsigned stride_width = 2;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_width = 5; // (pad_left + in_width + pad_right - pool_width) / stride_width + 1
    static const unsigned pool_op = pool_max;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    // The height of a 1-D layer: one row, a window of one row, no padding.
    static const unsigned in_height = 1;
    static const unsigned pool_height = 1;
    static const unsigned stride_height = 1;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned out_height = 1;
};

// A 2-D layer sets the height members too (pad_top and pad_bottom stay 0 unless set).
struct pooling2d_config : pooling1d_config {
    static const unsigned in_height = 10;
    static const unsigned pool_height = 2;
    static const unsigned stride_height = 2;
    static const unsigned out_height = 5; // (pad_top + in_height + pad_bottom - pool_height) / stride_height + 1
};

struct global_pooling1d_config {
    // Required typedef (average only): accum_t.
    static const unsigned in_height = 1; // a 1-D layer is one row
    static const unsigned in_width = 10;
    static const unsigned n_filt = 1;
    static const unsigned pool_op = pool_max;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

struct global_pooling2d_config : global_pooling1d_config {
    static const unsigned in_height = 10;
};

// The valid input positions of a window along one axis: the window covers padded coordinates
// [start, start + size); the input occupies [pad, pad + n). `first` is an input index.
struct pool_span {
    unsigned first, count;
};

inline pool_span valid_span(unsigned start, unsigned size, unsigned pad, unsigned n) {
    const unsigned low = start > pad ? start : pad;
    const unsigned high = start + size < pad + n ? start + size : pad + n;
    return pool_span{low - pad, high - low};
}

template <class CONFIG_T> struct pooling_sizes {
    static const unsigned n_pixels = CONFIG_T::out_height * CONFIG_T::out_width;
    static const unsigned n_in = CONFIG_T::in_height * CONFIG_T::in_width * CONFIG_T::n_filt;
    static const unsigned n_out = CONFIG_T::out_height * CONFIG_T::out_width * CONFIG_T::n_filt;
    static_assert(CONFIG_T::out_width ==
                      (CONFIG_T::pad_left + CONFIG_T::in_width + CONFIG_T::pad_right - CONFIG_T::pool_width) /
                              CONFIG_T::stride_width +
                          1,
                  "pooling: out_width must be (pad_left + in_width + pad_right - pool_width) / stride_width + 1");
    static_assert(CONFIG_T::out_height ==
                      (CONFIG_T::pad_top + CONFIG_T::in_height + CONFIG_T::pad_bottom - CONFIG_T::pool_height) /
                              CONFIG_T::stride_height +
                          1,
                  "pooling: out_height must be (pad_top + in_height + pad_bottom - pool_height) / stride_height + 1");
    // Every window holds at least one valid input.
    static_assert(CONFIG_T::pad_left < CONFIG_T::pool_width &&
                      (CONFIG_T::out_width - 1) * CONFIG_T::stride_width < CONFIG_T::pad_left + CONFIG_T::in_width,
                  "pooling: a window along the width lies entirely in the padding");
    static_assert(CONFIG_T::pad_top < CONFIG_T::pool_height &&
                      (CONFIG_T::out_height - 1) * CONFIG_T::stride_height < CONFIG_T::pad_top + CONFIG_T::in_height,
                  "pooling: a window along the height lies entirely in the padding");
};

// One output pixel of one channel. Reduce is pool_max_op or pool_average_op.
template <class data_T, class res_T, typename CONFIG_T, class Reduce>
inline void pool_window(const data_T *data, res_T &res, unsigned pixel, unsigned c) {
    NNET_INLINE
    const pool_span rows = valid_span((pixel / CONFIG_T::out_width) * CONFIG_T::stride_height, CONFIG_T::pool_height,
                                      CONFIG_T::pad_top, CONFIG_T::in_height);
    const pool_span cols = valid_span((pixel % CONFIG_T::out_width) * CONFIG_T::stride_width, CONFIG_T::pool_width,
                                      CONFIG_T::pad_left, CONFIG_T::in_width);
    typename Reduce::state_t state;
    Reduce::start(state, data[(rows.first * CONFIG_T::in_width + cols.first) * CONFIG_T::n_filt + c]);
    NNET_UNROLL
    for (unsigned kh = 0; kh < CONFIG_T::pool_height; kh++) {
        NNET_UNROLL
        for (unsigned kw = 0; kw < CONFIG_T::pool_width; kw++) {
            if (kh < rows.count && kw < cols.count) {
                const unsigned ih = rows.first + kh, iw = cols.first + kw;
                Reduce::add(state, data[(ih * CONFIG_T::in_width + iw) * CONFIG_T::n_filt + c]);
            }
        }
    }
    Reduce::finish(state, int(rows.count * cols.count), res);
}

#ifdef NNET_CSIM_FAST
// C-simulation only (nnet_csim_fast.h): pool_window of max pooling for all n_filt channels of one output
// pixel at once, on the raw integers (within one type a larger raw integer is a larger value, so the
// maximum is the same input); each result is that input written into res_T, as pool_max_op's finish.
template <class data_T, class res_T, typename CONFIG_T>
inline void pool_max_pixel_raw(const data_T *data, res_T *res, unsigned pixel) {
    typedef typename data_T::raw_type raw_type;
    const pool_span rows = valid_span((pixel / CONFIG_T::out_width) * CONFIG_T::stride_height, CONFIG_T::pool_height,
                                      CONFIG_T::pad_top, CONFIG_T::in_height);
    const pool_span cols = valid_span((pixel % CONFIG_T::out_width) * CONFIG_T::stride_width, CONFIG_T::pool_width,
                                      CONFIG_T::pad_left, CONFIG_T::in_width);
    const raw_type *first = csim_fast::raw_values(data + (rows.first * CONFIG_T::in_width + cols.first) * CONFIG_T::n_filt);
    raw_type best[CONFIG_T::n_filt];
    for (unsigned c = 0; c < CONFIG_T::n_filt; c++)
        best[c] = first[c];
    for (unsigned kh = 0; kh < rows.count; kh++) {
        for (unsigned kw = 0; kw < cols.count; kw++) {
            const raw_type *in = first + (kh * CONFIG_T::in_width + kw) * CONFIG_T::n_filt;
            for (unsigned c = 0; c < CONFIG_T::n_filt; c++)
                best[c] = in[c] > best[c] ? in[c] : best[c];
        }
    }
    for (unsigned c = 0; c < CONFIG_T::n_filt; c++)
        res[c] = csim_fast::from_raw<data_T>(best[c]);
}
#endif

// max: the state is the largest input so far (data_T, exact). start() takes the first valid input,
// which add() visits again without effect.
template <class data_T> struct pool_max_op {
    typedef data_T state_t;
    static void start(state_t &best, const data_T &x) { best = x; }
    static void add(state_t &best, const data_T &x) {
        if (greater_than(x, best))
            best = x;
    }
    template <class res_T> static void finish(const state_t &best, int, res_T &res) { res = best; }
};

// average: the state is the sum (accum_t) from 0; res = sum / count.
template <class data_T, class accum_T> struct pool_average_op {
    typedef accum_T state_t;
    static void start(state_t &sum, const data_T &) { sum = 0; }
    static void add(state_t &sum, const data_T &x) { sum += x; }
    template <class res_T> static void finish(const state_t &sum, int count, res_T &res) { res = sum / count; }
};

// Picks the reduction of CONFIG_T::pool_op; only the chosen one is instantiated, so max pooling
// needs no accum_t.
template <unsigned Op, class data_T, class CONFIG_T> struct pool_reduce;
template <class data_T, class CONFIG_T> struct pool_reduce<pool_max, data_T, CONFIG_T> {
    typedef pool_max_op<data_T> type;
};
template <class data_T, class CONFIG_T> struct pool_reduce<pool_average, data_T, CONFIG_T> {
    typedef pool_average_op<data_T, typename CONFIG_T::accum_t> type;
};

// The call the lowering emits for Pooling1D and Pooling2D. All windows in parallel; the function is
// pipelined at II = reuse_factor.
template <class data_T, class res_T, typename CONFIG_T>
void pooling(const data_T data[pooling_sizes<CONFIG_T>::n_in], res_T res[pooling_sizes<CONFIG_T>::n_out]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typedef typename pool_reduce<CONFIG_T::pool_op, data_T, CONFIG_T>::type reduce;
    NNET_UNROLL
    for (unsigned pixel = 0; pixel < pooling_sizes<CONFIG_T>::n_pixels; pixel++) {
        NNET_UNROLL
        for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
            pool_window<data_T, res_T, CONFIG_T, reduce>(data, res[pixel * CONFIG_T::n_filt + c], pixel, c);
        }
    }
}

// The call the lowering emits for GlobalPooling1D and GlobalPooling2D.
template <class data_T, class res_T, typename CONFIG_T>
void global_pooling(const data_T data[CONFIG_T::in_height * CONFIG_T::in_width * CONFIG_T::n_filt],
                    res_T res[CONFIG_T::n_filt]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typedef typename pool_reduce<CONFIG_T::pool_op, data_T, CONFIG_T>::type reduce;
    const unsigned n_positions = CONFIG_T::in_height * CONFIG_T::in_width;
    NNET_UNROLL
    for (unsigned c = 0; c < CONFIG_T::n_filt; c++) {
        typename reduce::state_t state;
        reduce::start(state, data[c]);
        NNET_UNROLL
        for (unsigned position = 0; position < n_positions; position++) {
            reduce::add(state, data[position * CONFIG_T::n_filt + c]);
        }
        reduce::finish(state, int(n_positions), res[c]);
    }
}

} // namespace nnet

#endif
