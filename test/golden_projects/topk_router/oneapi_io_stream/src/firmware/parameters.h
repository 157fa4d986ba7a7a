// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_dense.h"
#include "nnet_utils/nnet_dense_stream.h"
#include "nnet_utils/nnet_router.h"
#include "nnet_utils/nnet_router_stream.h"

#include "weights/w2.h"
#include "weights/b2.h"
#include "weights/exp_table3.h"
#include "weights/inv_table3.h"

// router_gate (Dense)
struct config2 : nnet::dense_config {
    static const unsigned n_in = 4;
    static const unsigned n_out = 8;
    static const unsigned io_type = nnet::io_stream;
    static const unsigned strategy = nnet::latency;
    static const unsigned reuse_factor = 1;
    static const unsigned n_zeros = 1;
    typedef layer2_accum_t accum_t;
    typedef layer2_weight_t weight_t;
    typedef layer2_bias_t bias_t;
};

// router (Router)
struct config3 : nnet::router_config {
    static const unsigned n_in = 8;
    static const unsigned k = 2;
    static const unsigned n_out = 8;
    static const bool renormalize = true;
    static const unsigned output = nnet::router_gates;
    static const unsigned table_size = 64;
    static const unsigned io_type = nnet::io_stream;
    static const int exp_table_shift = 3;
    static const int exp_table_start = -63;
    static const int inv_table_shift = 5;
    static const int inv_table_start = 32;
    typedef layer3_accum_t accum_t;
    typedef layer3_exp_table_t exp_table_t;
    typedef ac_fixed<8,5,true,AC_TRN,AC_SAT> exp_index_t;
    typedef layer3_inv_table_t inv_table_t;
    typedef ac_fixed<8,3,true,AC_TRN,AC_SAT> inv_index_t;
};

#endif
