// Layer configurations and constant arrays of myproject (written by hls4ml; do not edit).
#ifndef PARAMETERS_H_
#define PARAMETERS_H_

#include "defines.h"

#include "nnet_utils/nnet_som.h"

#include "weights/w2.h"
#include "weights/l2.h"

// som (SOM)
struct config2 : nnet::som_config {
    static const unsigned n_in = 5;
    static const unsigned n_units = 12;
    static const unsigned n_cols = 4;
    static const unsigned n_out = 1;
    static const unsigned distance = nnet::som_squared_euclidean;
    static const unsigned output = nnet::som_index;
    static const unsigned io_type = nnet::io_parallel;
    static const unsigned reuse_factor = 1;
    typedef layer2_accum_t accum_t;
    typedef layer2_codebook_t codebook_t;
    typedef layer2_label_t label_t;
};

#endif
