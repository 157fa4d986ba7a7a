// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_activation.h"
#include "nnet_utils/nnet_activation_stream.h"
#include "nnet_utils/nnet_dense.h"
#include "nnet_utils/nnet_dense_stream.h"
#include "nnet_utils/nnet_softmax.h"

#include "weights/w2.h"
#include "weights/b2.h"
#include "weights/w4.h"
#include "weights/b4.h"
#include "weights/exp_table5.h"
#include "weights/inv_table5.h"

// fc1 (Dense)
struct config2 : nnet::dense_config {
    static const unsigned n_in = 6;
    static const unsigned n_out = 8;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::resource;
    static const unsigned reuse_factor = 2;
    static const unsigned n_zeros = 4;
    typedef layer2_accum_t accum_t;
    typedef layer2_weight_t weight_t;
    typedef layer2_bias_t bias_t;
};

// fc1_relu (Activation)
struct config3 : nnet::activ_config {
    static const unsigned n_in = 8;
    static const unsigned io_type = nnet::io_stream;
};

// fc2 (Dense)
struct config4 : nnet::dense_config {
    static const unsigned n_in = 8;
    static const unsigned n_out = 4;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned n_zeros = 2;
    typedef layer4_accum_t accum_t;
    typedef layer4_weight_t weight_t;
    typedef layer4_bias_t bias_t;
};

// fc2_softmax (Softmax)
struct config5 : nnet::softmax_config {
    static const unsigned n_in = 4;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned implementation = nnet::softmax_stable_impl;
    static const unsigned table_size = 64;
    static const int exp_table_shift = 3;
    static const int exp_table_start = -63;
    static const int inv_table_shift = 4;
    static const int inv_table_start = 16;
    typedef layer5_accum_t accum_t;
    typedef layer5_exp_table_t exp_table_t;
    typedef ap_fixed<8,5,AP_TRN,AP_SAT> exp_index_t;
    typedef layer5_inv_table_t inv_table_t;
    typedef ap_fixed<8,4,AP_TRN,AP_SAT> inv_index_t;
};

#endif
