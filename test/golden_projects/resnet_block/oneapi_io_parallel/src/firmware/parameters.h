// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_activation.h"
#include "nnet_utils/nnet_array.h"
#include "nnet_utils/nnet_batchnorm.h"
#include "nnet_utils/nnet_conv.h"
#include "nnet_utils/nnet_merge.h"

#include "weights/w3.h"
#include "weights/b3.h"
#include "weights/s4.h"
#include "weights/b4.h"
#include "weights/w6.h"
#include "weights/b6.h"
#include "weights/s7.h"
#include "weights/b7.h"

// conv1_transpose (Transpose)
struct config2 : nnet::transpose_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_parallel;
    static const unsigned dims = 3;
    static const unsigned d0 = 3;
    static const unsigned d1 = 4;
    static const unsigned d2 = 4;
    static const unsigned perm_0 = 1;
    static const unsigned perm_1 = 2;
    static const unsigned perm_2 = 0;
};

// conv1 (Conv2D)
struct config3 : nnet::conv2d_config {
    static const unsigned n_in = 48;
    static const unsigned in_height = 4;
    static const unsigned in_width = 4;
    static const unsigned n_chan = 3;
    static const unsigned filt_height = 3;
    static const unsigned filt_width = 3;
    static const unsigned n_filt = 3;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_top = 1;
    static const unsigned pad_bottom = 1;
    static const unsigned pad_left = 1;
    static const unsigned pad_right = 1;
    static const unsigned out_height = 4;
    static const unsigned out_width = 4;
    static const unsigned io_type = nnet::io_parallel;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1;
    static const unsigned n_zeros = 6;
    typedef layer3_accum_t accum_t;
    typedef layer3_weight_t weight_t;
    typedef layer3_bias_t bias_t;
};

// bn1 (BatchNormalization)
struct config4 : nnet::batchnorm_config {
    static const unsigned n_in = 48;
    static const unsigned n_scale_bias = 48;
    static const unsigned io_type = nnet::io_parallel;
    typedef layer4_scale_t scale_t;
    typedef layer4_bias_t bias_t;
};

// relu1 (Activation)
struct config5 : nnet::activ_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_parallel;
};

// conv2 (Conv2D)
struct config6 : nnet::conv2d_config {
    static const unsigned n_in = 48;
    static const unsigned in_height = 4;
    static const unsigned in_width = 4;
    static const unsigned n_chan = 3;
    static const unsigned filt_height = 3;
    static const unsigned filt_width = 3;
    static const unsigned n_filt = 3;
    static const unsigned stride_height = 1;
    static const unsigned stride_width = 1;
    static const unsigned pad_top = 1;
    static const unsigned pad_bottom = 1;
    static const unsigned pad_left = 1;
    static const unsigned pad_right = 1;
    static const unsigned out_height = 4;
    static const unsigned out_width = 4;
    static const unsigned io_type = nnet::io_parallel;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned parallelization_factor = 1;
    static const unsigned n_zeros = 6;
    typedef layer6_accum_t accum_t;
    typedef layer6_weight_t weight_t;
    typedef layer6_bias_t bias_t;
};

// bn2 (BatchNormalization)
struct config7 : nnet::batchnorm_config {
    static const unsigned n_in = 48;
    static const unsigned n_scale_bias = 48;
    static const unsigned io_type = nnet::io_parallel;
    typedef layer7_scale_t scale_t;
    typedef layer7_bias_t bias_t;
};

// add (Merge)
struct config8 : nnet::merge_config {
    static const unsigned n_in = 48;
    static const unsigned n_elem = 48;
    static const unsigned io_type = nnet::io_parallel;
};

// relu2 (Activation)
struct config9 : nnet::activ_config {
    static const unsigned n_in = 48;
    static const unsigned io_type = nnet::io_parallel;
};

#endif
