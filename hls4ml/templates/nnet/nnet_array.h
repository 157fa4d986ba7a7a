// Index moves, io_parallel, channels last: copy, zero padding, cropping, nearest-neighbour
// upsampling (1D and 2D) and transpose of rank-2 and rank-3 tensors.
//
// Flat layouts: 1D index w * n_chan + c, 2D index (h * width + w) * n_chan + c, a rank-3 tensor
// of shape (d0, d1, d2) index (i0 * d1 + i1) * d2 + i2. Every output is one write into res_T of
// an input value, or of the integer 0 (padding). Nothing is computed.
//
// Padding, cropping and upsampling are one kernel each (zeropad, cropping, upsampling) for both
// ranks: a 1-D layer is the 2-D one of height 1, whose members its config base sets.
#ifndef NNET_ARRAY_H_
#define NNET_ARRAY_H_

#include "nnet_common.h"

namespace nnet {

struct copy_config {
    static const unsigned n_elem = 10;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

struct padding1d_config {
    static const unsigned in_width = 10;
    static const unsigned n_chan = 1;
    static const unsigned out_width = 10; // in_width + pad_left + pad_right
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    // The height of a 1-D layer: one row, no padding above or below.
    static const unsigned in_height = 1;
    static const unsigned out_height = 1; // in_height + pad_top + pad_bottom
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
};

struct padding2d_config : padding1d_config {
    static const unsigned in_height = 10;
    static const unsigned out_height = 10;
};

struct cropping1d_config {
    static const unsigned in_width = 10;
    static const unsigned n_chan = 1;
    static const unsigned out_width = 10; // in_width - crop_left - crop_right
    static const unsigned crop_left = 0;
    static const unsigned crop_right = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    // The height of a 1-D layer: one row, nothing cropped above or below.
    static const unsigned in_height = 1;
    static const unsigned out_height = 1; // in_height - crop_top - crop_bottom
    static const unsigned crop_top = 0;
    static const unsigned crop_bottom = 0;
};

struct cropping2d_config : cropping1d_config {
    static const unsigned in_height = 10;
    static const unsigned out_height = 10;
};

struct upsampling1d_config {
    static const unsigned in_width = 10;
    static const unsigned n_chan = 1;
    static const unsigned out_width = 20; // in_width * width_factor
    static const unsigned width_factor = 2;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    // The height of a 1-D layer: one row, not repeated.
    static const unsigned in_height = 1;
    static const unsigned out_height = 1; // in_height * height_factor
    static const unsigned height_factor = 1;
};

struct upsampling2d_config : upsampling1d_config {
    static const unsigned in_height = 10;
    static const unsigned out_height = 20;
    static const unsigned height_factor = 2;
};

struct transpose_config {
    // Input shape (d0, d1, d2) without the batch axis; a rank-2 tensor has dims = 2, d2 = 1 and
    // perm_2 = 2. Output axis k is input axis perm_k (Keras Permute's dims minus 1).
    static const unsigned dims = 2;
    static const unsigned d0 = 10;
    static const unsigned d1 = 10;
    static const unsigned d2 = 1;
    static const unsigned perm_0 = 1;
    static const unsigned perm_1 = 0;
    static const unsigned perm_2 = 2;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// ---- copy -------------------------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T>
void copy(const data_T data[CONFIG_T::n_elem], res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_elem>(data, res, copy_op());
}

// ---- zero padding, cropping, upsampling ------------------------------------------------------------------

// Where the output pixel (h, w) comes from: input pixel source(h, w) (row-major over in_height x
// in_width), or nowhere when inside(h, w) is false (padding, written 0). Unsigned differences wrap
// around for positions before the input, so one comparison tests both ends.
template <class CONFIG_T> struct zeropad_map {
    static bool inside(unsigned h, unsigned w) {
        return h - CONFIG_T::pad_top < CONFIG_T::in_height && w - CONFIG_T::pad_left < CONFIG_T::in_width;
    }
    static unsigned source(unsigned h, unsigned w) {
        return (h - CONFIG_T::pad_top) * CONFIG_T::in_width + (w - CONFIG_T::pad_left);
    }
};

template <class CONFIG_T> struct cropping_map {
    static bool inside(unsigned, unsigned) { return true; }
    static unsigned source(unsigned h, unsigned w) {
        return (h + CONFIG_T::crop_top) * CONFIG_T::in_width + (w + CONFIG_T::crop_left);
    }
};

template <class CONFIG_T> struct upsampling_map {
    static bool inside(unsigned, unsigned) { return true; }
    static unsigned source(unsigned h, unsigned w) {
        return (h / CONFIG_T::height_factor) * CONFIG_T::in_width + w / CONFIG_T::width_factor;
    }
};

// For every output pixel, its n_chan values from the input pixel Map names, or 0; all in parallel
// (the calling kernel pipelines).
template <class Map, class CONFIG_T, class data_T, class res_T>
inline void move_pixels(const data_T *data, res_T *res) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned h = 0; h < CONFIG_T::out_height; h++) {
        NNET_UNROLL
        for (unsigned w = 0; w < CONFIG_T::out_width; w++) {
            NNET_UNROLL
            for (unsigned c = 0; c < CONFIG_T::n_chan; c++) {
                const unsigned out = (h * CONFIG_T::out_width + w) * CONFIG_T::n_chan + c;
                if (Map::inside(h, w))
                    res[out] = data[Map::source(h, w) * CONFIG_T::n_chan + c];
                else
                    res[out] = 0;
            }
        }
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void zeropad(const data_T data[CONFIG_T::in_height * CONFIG_T::in_width * CONFIG_T::n_chan],
             res_T res[CONFIG_T::out_height * CONFIG_T::out_width * CONFIG_T::n_chan]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::out_height == CONFIG_T::in_height + CONFIG_T::pad_top + CONFIG_T::pad_bottom,
                  "zeropad: out_height must be in_height + pad_top + pad_bottom");
    static_assert(CONFIG_T::out_width == CONFIG_T::in_width + CONFIG_T::pad_left + CONFIG_T::pad_right,
                  "zeropad: out_width must be in_width + pad_left + pad_right");
    move_pixels<zeropad_map<CONFIG_T>, CONFIG_T>(data, res);
}

template <class data_T, class res_T, typename CONFIG_T>
void cropping(const data_T data[CONFIG_T::in_height * CONFIG_T::in_width * CONFIG_T::n_chan],
              res_T res[CONFIG_T::out_height * CONFIG_T::out_width * CONFIG_T::n_chan]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::out_height + CONFIG_T::crop_top + CONFIG_T::crop_bottom == CONFIG_T::in_height,
                  "cropping: out_height must be in_height - crop_top - crop_bottom");
    static_assert(CONFIG_T::out_width + CONFIG_T::crop_left + CONFIG_T::crop_right == CONFIG_T::in_width,
                  "cropping: out_width must be in_width - crop_left - crop_right");
    move_pixels<cropping_map<CONFIG_T>, CONFIG_T>(data, res);
}

// Nearest neighbour: every input pixel repeated height_factor x width_factor times.
template <class data_T, class res_T, typename CONFIG_T>
void upsampling(const data_T data[CONFIG_T::in_height * CONFIG_T::in_width * CONFIG_T::n_chan],
                res_T res[CONFIG_T::out_height * CONFIG_T::out_width * CONFIG_T::n_chan]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::out_height == CONFIG_T::in_height * CONFIG_T::height_factor,
                  "upsampling: out_height must be in_height * height_factor");
    static_assert(CONFIG_T::out_width == CONFIG_T::in_width * CONFIG_T::width_factor,
                  "upsampling: out_width must be in_width * width_factor");
    move_pixels<upsampling_map<CONFIG_T>, CONFIG_T>(data, res);
}

// ---- transpose --------------------------------------------------------------------------------------------

// Size and row-major stride of input axis k of the (d0, d1, d2) tensor.
template <typename CONFIG_T> constexpr unsigned transpose_size(unsigned k) {
    return k == 0 ? CONFIG_T::d0 : k == 1 ? CONFIG_T::d1 : CONFIG_T::d2;
}

template <typename CONFIG_T> constexpr unsigned transpose_stride(unsigned k) {
    return k == 0 ? CONFIG_T::d1 * CONFIG_T::d2 : k == 1 ? CONFIG_T::d2 : 1;
}

// res[o0][o1][o2] = data[i] with input index i_{perm_k} = o_k.
template <class data_T, class res_T, typename CONFIG_T>
void transpose(const data_T data[CONFIG_T::d0 * CONFIG_T::d1 * CONFIG_T::d2],
               res_T res[CONFIG_T::d0 * CONFIG_T::d1 * CONFIG_T::d2]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::dims == 2 || CONFIG_T::dims == 3, "transpose: dims must be 2 or 3");
    static_assert(CONFIG_T::dims == 3 || (CONFIG_T::d2 == 1 && CONFIG_T::perm_2 == 2),
                  "transpose: a rank-2 tensor has d2 = 1 and perm_2 = 2");
    static_assert(CONFIG_T::perm_0 < 3 && CONFIG_T::perm_1 < 3 && CONFIG_T::perm_2 < 3 &&
                      CONFIG_T::perm_0 != CONFIG_T::perm_1 && CONFIG_T::perm_0 != CONFIG_T::perm_2 &&
                      CONFIG_T::perm_1 != CONFIG_T::perm_2,
                  "transpose: perm_0, perm_1, perm_2 must be a permutation of 0, 1, 2");
    constexpr unsigned size0 = transpose_size<CONFIG_T>(CONFIG_T::perm_0);
    constexpr unsigned size1 = transpose_size<CONFIG_T>(CONFIG_T::perm_1);
    constexpr unsigned size2 = transpose_size<CONFIG_T>(CONFIG_T::perm_2);
    constexpr unsigned stride0 = transpose_stride<CONFIG_T>(CONFIG_T::perm_0);
    constexpr unsigned stride1 = transpose_stride<CONFIG_T>(CONFIG_T::perm_1);
    constexpr unsigned stride2 = transpose_stride<CONFIG_T>(CONFIG_T::perm_2);
    NNET_UNROLL
    for (unsigned o0 = 0; o0 < size0; o0++) {
        NNET_UNROLL
        for (unsigned o1 = 0; o1 < size1; o1++) {
            NNET_UNROLL
            for (unsigned o2 = 0; o2 < size2; o2++) {
                res[(o0 * size1 + o1) * size2 + o2] = data[o0 * stride0 + o1 * stride1 + o2 * stride2];
            }
        }
    }
}

} // namespace nnet

#endif
