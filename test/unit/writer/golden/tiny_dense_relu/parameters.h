// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_activation.h"
#include "nnet_utils/nnet_dense.h"

#include "weights/w2.h"
#include "weights/b2.h"

// fc (Dense)
struct config2 : nnet::dense_config {
    static const unsigned n_in = 3;
    static const unsigned n_out = 2;
    static const unsigned io_type = nnet::io_parallel;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned n_zeros = 0;
    typedef layer2_accum_t accum_t;
    typedef layer2_weight_t weight_t;
    typedef layer2_bias_t bias_t;
};

// fc_relu (Activation)
struct config3 : nnet::activ_config {
    static const unsigned n_in = 2;
    static const unsigned io_type = nnet::io_parallel;
};

#endif
