// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_activation.h"
#include "nnet_utils/nnet_activation_stream.h"
#include "nnet_utils/nnet_array.h"
#include "nnet_utils/nnet_array_stream.h"
#include "nnet_utils/nnet_batchnorm.h"
#include "nnet_utils/nnet_conv.h"
#include "nnet_utils/nnet_conv_stream.h"
#include "nnet_utils/nnet_merge.h"
#include "nnet_utils/nnet_merge_stream.h"
#include "nnet_utils/nnet_stream.h"

#include "weights/w5.h"
#include "weights/b5.h"
#include "weights/s6.h"
#include "weights/b6.h"
#include "weights/w9.h"
#include "weights/b9.h"
#include "weights/s10.h"
#include "weights/b10.h"

// conv1_transpose (Transpose)
struct config2 : nnet::transpose_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned dims = 3;
    static const unsigned d0 = 3;
    static const unsigned d1 = 4;
    static const unsigned d2 = 4;
    static const unsigned perm_0 = 1;
    static const unsigned perm_1 = 2;
    static const unsigned perm_2 = 0;
};

// conv1_transpose_clone (Clone)
struct config3 : nnet::clone_config {
    static const unsigned n_in = 48;
    static const unsigned n_elem = 48;
    static const unsigned io_type = nnet::io_stream;
};

// conv1_pad (ZeroPadding2D)
struct config4 : nnet::padding2d_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned in_height = 4;
    static const unsigned in_width = 4;
    static const unsigned n_chan = 3;
    static const unsigned pad_top = 1;
    static const unsigned pad_bottom = 1;
    static const unsigned pad_left = 1;
    static const unsigned pad_right = 1;
    static const unsigned out_height = 6;
    static const unsigned out_width = 6;
};

// conv1 (Conv2D)
struct config5 : nnet::conv2d_config {
    static const unsigned n_in = 108;
    static const unsigned in_height = 6;
    static const unsigned in_width = 6;
    static const unsigned n_chan = 3;
    static const unsigned filt_height = 3;
    static const unsigned filt_width = 3;
    static const unsigned n_filt = 3;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_height = 4;
    static const unsigned out_width = 4;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1;
    static const unsigned n_zeros = 6;
    typedef layer5_accum_t accum_t;
    typedef layer5_weight_t weight_t;
    typedef layer5_bias_t bias_t;
};

// bn1 (BatchNormalization)
struct config6 : nnet::batchnorm_config {
    static const unsigned n_in = 48;
    static const unsigned n_scale_bias = 48;
    static const unsigned io_type = nnet::io_stream;
    typedef layer6_scale_t scale_t;
    typedef layer6_bias_t bias_t;
};

// relu1 (Activation)
struct config7 : nnet::activ_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_stream;
};

// conv2_pad (ZeroPadding2D)
struct config8 : nnet::padding2d_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned in_height = 4;
    static const unsigned in_width = 4;
    static const unsigned n_chan = 3;
    static const unsigned pad_top = 1;
    static const unsigned pad_bottom = 1;
    static const unsigned pad_left = 1;
    static const unsigned pad_right = 1;
    static const unsigned out_height = 6;
    static const unsigned out_width = 6;
};

// conv2 (Conv2D)
struct config9 : nnet::conv2d_config {
    static const unsigned n_in = 108;
    static const unsigned in_height = 6;
    static const unsigned in_width = 6;
    static const unsigned n_chan = 3;
    static const unsigned filt_height = 3;
    static const unsigned filt_width = 3;
    static const unsigned n_filt = 3;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_top = 0;
    static const unsigned pad_bottom = 0;
    static const unsigned pad_left = 0;
    static const unsigned pad_right = 0;
    static const unsigned out_height = 4;
    static const unsigned out_width = 4;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1;
    static const unsigned n_zeros = 6;
    typedef layer9_accum_t accum_t;
    typedef layer9_weight_t weight_t;
    typedef layer9_bias_t bias_t;
};

// bn2 (BatchNormalization)
struct config10 : nnet::batchnorm_config {
    static const unsigned n_in = 48;
    static const unsigned n_scale_bias = 48;
    static const unsigned io_type = nnet::io_stream;
    typedef layer10_scale_t scale_t;
    typedef layer10_bias_t bias_t;
};

// add (Merge)
struct config11 : nnet::merge_config {
    static const unsigned n_in = 48;
    static const unsigned n_elem = 48;
    static const unsigned io_type = nnet::io_stream;
};

// relu2 (Activation)
struct config12 : nnet::activ_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_stream;
};

#endif
