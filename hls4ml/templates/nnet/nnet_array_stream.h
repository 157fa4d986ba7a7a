// Index moves for io_stream, channels last (one element = the n_chan values of one position):
// copy, zero padding, cropping, nearest-neighbour upsampling (1D and 2D) and transpose.
//
// Same kernel names and config structs as io_parallel (nnet_array.h; a 1-D layer is the 2-D one of
// height 1). Every output value is one write into the result element's value type of an input value
// or of the integer 0 (padding), as there. Padding emits zero elements around the copied ones,
// cropping reads every element and writes those inside the window, upsampling repeats elements
// (rows repeated height_factor > 1 times are kept in a row buffer, one row at a time),
// transpose buffers the whole tensor and emits it in the permuted order (through the io_parallel
// transpose, so any packing whose sizes divide the tensor works; the lowering packs the last axis of
// the input and of the output).
#ifndef NNET_ARRAY_STREAM_H_
#define NNET_ARRAY_STREAM_H_

#include "nnet_array.h"
#include "nnet_stream.h"

namespace nnet {

// ---- copy -------------------------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T> void copy(stream<data_T> &data, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_elem>(data, res, copy_op());
}

// ---- zero padding -------------------------------------------------------------------------------------

// `count` zero elements.
template <unsigned count, class res_T> inline void write_zeros(stream<res_T> &res) {
    NNET_INLINE
    for (unsigned e = 0; e < count; e++) {
        NNET_PIPELINE(1)
        res.write(zero_element<res_T>());
    }
}

// One padded row: pad_left zeros, in_width copied elements, pad_right zeros.
template <unsigned pad_left, unsigned in_width, unsigned pad_right, class data_T, class res_T>
inline void pad_row_stream(stream<data_T> &data, stream<res_T> &res) {
    NNET_INLINE
    write_zeros<pad_left>(res);
    for (unsigned w = 0; w < in_width; w++) {
        NNET_PIPELINE(1)
        res_T out;
        copy_element(data.read(), out);
        res.write(out);
    }
    write_zeros<pad_right>(res);
}

template <class data_T, class res_T, typename CONFIG_T> void zeropad(stream<data_T> &data, stream<res_T> &res) {
    static_assert(CONFIG_T::out_height == CONFIG_T::in_height + CONFIG_T::pad_top + CONFIG_T::pad_bottom,
                  "zeropad: out_height must be in_height + pad_top + pad_bottom");
    static_assert(CONFIG_T::out_width == CONFIG_T::in_width + CONFIG_T::pad_left + CONFIG_T::pad_right,
                  "zeropad: out_width must be in_width + pad_left + pad_right");
    static_assert(data_T::size == CONFIG_T::n_chan, "zeropad stream: an element holds the n_chan values");
    write_zeros<CONFIG_T::pad_top * CONFIG_T::out_width>(res);
    for (unsigned h = 0; h < CONFIG_T::in_height; h++) {
        pad_row_stream<CONFIG_T::pad_left, CONFIG_T::in_width, CONFIG_T::pad_right>(data, res);
    }
    write_zeros<CONFIG_T::pad_bottom * CONFIG_T::out_width>(res);
}

// ---- cropping -------------------------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T> void cropping(stream<data_T> &data, stream<res_T> &res) {
    static_assert(CONFIG_T::out_height + CONFIG_T::crop_top + CONFIG_T::crop_bottom == CONFIG_T::in_height,
                  "cropping: out_height must be in_height - crop_top - crop_bottom");
    static_assert(CONFIG_T::out_width + CONFIG_T::crop_left + CONFIG_T::crop_right == CONFIG_T::in_width,
                  "cropping: out_width must be in_width - crop_left - crop_right");
    static_assert(data_T::size == CONFIG_T::n_chan, "cropping stream: an element holds the n_chan values");
    for (unsigned h = 0; h < CONFIG_T::in_height; h++) {
        for (unsigned w = 0; w < CONFIG_T::in_width; w++) {
            NNET_PIPELINE(1)
            const data_T in = data.read();
            // (unsigned: a position before the window wraps around to a large value)
            if (h - CONFIG_T::crop_top < CONFIG_T::out_height && w - CONFIG_T::crop_left < CONFIG_T::out_width) {
                res_T out;
                copy_element(in, out);
                res.write(out);
            }
        }
    }
}

// ---- nearest-neighbour upsampling ------------------------------------------------------------------------

// The rows of the image, each emitted height_factor times. Rows emitted once (RepeatRows false: 1-D
// layers, and 2-D ones that upsample the width only) stream straight through, each element written
// width_factor times; repeated rows are read into a row buffer (converted to the result type once),
// then emitted height_factor times, each element width_factor times. A class template so that only
// the form the config selects is instantiated.
template <bool RepeatRows> struct upsampling_rows;

template <> struct upsampling_rows<false> {
    template <class data_T, class res_T, typename CONFIG_T> static void run(stream<data_T> &data, stream<res_T> &res) {
        NNET_INLINE
        for (unsigned p = 0; p < CONFIG_T::in_height * CONFIG_T::in_width; p++) {
            res_T out;
            copy_element(data.read(), out);
            for (unsigned k = 0; k < CONFIG_T::width_factor; k++) {
                NNET_PIPELINE(1)
                res.write(out);
            }
        }
    }
};

template <> struct upsampling_rows<true> {
    template <class data_T, class res_T, typename CONFIG_T> static void run(stream<data_T> &data, stream<res_T> &res) {
        NNET_INLINE
        res_T row[CONFIG_T::in_width];
        for (unsigned h = 0; h < CONFIG_T::in_height; h++) {
            for (unsigned w = 0; w < CONFIG_T::in_width; w++) {
                NNET_PIPELINE(1)
                copy_element(data.read(), row[w]);
            }
            for (unsigned i = 0; i < CONFIG_T::height_factor; i++) {
                for (unsigned w = 0; w < CONFIG_T::out_width; w++) {
                    NNET_PIPELINE(1)
                    res.write(row[w / CONFIG_T::width_factor]);
                }
            }
        }
    }
};

template <class data_T, class res_T, typename CONFIG_T> void upsampling(stream<data_T> &data, stream<res_T> &res) {
    static_assert(CONFIG_T::out_height == CONFIG_T::in_height * CONFIG_T::height_factor,
                  "upsampling: out_height must be in_height * height_factor");
    static_assert(CONFIG_T::out_width == CONFIG_T::in_width * CONFIG_T::width_factor,
                  "upsampling: out_width must be in_width * width_factor");
    static_assert(data_T::size == CONFIG_T::n_chan, "upsampling stream: an element holds the n_chan values");
    upsampling_rows<(CONFIG_T::height_factor > 1)>::template run<data_T, res_T, CONFIG_T>(data, res);
}

// ---- transpose --------------------------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T> void transpose(stream<data_T> &data, stream<res_T> &res) {
    constexpr unsigned n = CONFIG_T::d0 * CONFIG_T::d1 * CONFIG_T::d2;
    typedef typename data_T::value_type data_value_t;
    typedef typename res_T::value_type res_value_t;
    data_value_t buffer[n];
    res_value_t permuted[n];
    read_whole<n, data_T>(data, buffer);
    transpose<data_value_t, res_value_t, CONFIG_T>(buffer, permuted);
    write_whole<n, res_T>(permuted, res);
}

} // namespace nnet

#endif
