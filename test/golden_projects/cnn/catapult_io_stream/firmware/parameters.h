// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_activation.h"
#include "nnet_utils/nnet_activation_stream.h"
#include "nnet_utils/nnet_array.h"
#include "nnet_utils/nnet_array_stream.h"
#include "nnet_utils/nnet_conv.h"
#include "nnet_utils/nnet_conv_stream.h"
#include "nnet_utils/nnet_dense.h"
#include "nnet_utils/nnet_dense_stream.h"
#include "nnet_utils/nnet_pooling.h"
#include "nnet_utils/nnet_pooling_stream.h"

#include "weights/w3.h"
#include "weights/b3.h"
#include "weights/w6.h"
#include "weights/b6.h"
#include "weights/w8.h"
#include "weights/b8.h"

// conv1_pad (ZeroPadding2D)
struct config2 : nnet::padding2d_config {
    static const unsigned n_in = 72;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned in_height = 6;
    static const unsigned in_width = 6;
    static const unsigned n_chan = 2;
    static const unsigned pad_top = 1;
    static const unsigned pad_bottom = 1;
    static const unsigned pad_left = 1;
    static const unsigned pad_right = 1;
    static const unsigned out_height = 8;
    static const unsigned out_width = 8;
};

// conv1 (Conv2D)
struct config3 : nnet::conv2d_config {
    static const unsigned n_in = 128;
    static const unsigned in_height = 8;
    static const unsigned in_width = 8;
    static const unsigned n_chan = 2;
    static const unsigned filt_height = 3;
    static const unsigned filt_width = 3;
    static const unsigned n_filt = 3;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_height = 6;
    static const unsigned out_width = 6;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1;
    static const unsigned n_zeros = 3;
    typedef layer3_accum_t accum_t;
    typedef layer3_weight_t weight_t;
    typedef layer3_bias_t bias_t;
};

// conv1_relu (Activation)
struct config4 : nnet::activ_config {
    static const unsigned n_in = 108;
    static const unsigned io_type = nnet::io_stream;
};

// pool (Pooling2D)
struct config5 : nnet::pooling2d_config {
    static const unsigned n_in = 108;
    static const unsigned in_height = 6;
    static const unsigned in_width = 6;
    static const unsigned n_filt = 3;
    static const unsigned stride_height = 2;
    static const unsigned stride_width = 2;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_height = 3;
    static const unsigned out_width = 3;
    static const unsigned pool_height = 2;
    static const unsigned pool_width = 2;
    static const unsigned pool_op = nnet::pool_max;
    static const unsigned io_type = nnet::io_stream;
    typedef layer5_accum_t accum_t;
};

// conv2 (Conv2D)
struct config6 : nnet::conv2d_config {
    static const unsigned n_in = 27;
    static const unsigned in_height = 3;
    static const unsigned in_width = 3;
    static const unsigned n_chan = 3;
    static const unsigned filt_height = 2;
    static const unsigned filt_width = 2;
    static const unsigned n_filt = 4;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_height = 2;
    static const unsigned out_width = 2;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1;
    static const unsigned n_zeros = 5;
    typedef layer6_accum_t accum_t;
    typedef layer6_weight_t weight_t;
    typedef layer6_bias_t bias_t;
};

// flatten (Reshape)
struct config7 : nnet::repack_config {
    static const unsigned n_in = 16;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned n_elem = 16;
};

// fc (Dense)
struct config8 : nnet::dense_config {
    static const unsigned n_in = 16;
    static const unsigned n_out = 3;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned n_zeros = 5;
    typedef layer8_accum_t accum_t;
    typedef layer8_weight_t weight_t;
    typedef layer8_bias_t bias_t;
};

#endif
