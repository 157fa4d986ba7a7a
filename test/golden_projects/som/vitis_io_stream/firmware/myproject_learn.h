// The learning top functions of myproject (written by hls4ml; do not edit): one step of on-chip
// learning per call, the codebook or lateral matrix an in-out memory (docs/som.md, "On-chip learning").
#ifndef MYPROJECT_LEARN_H_
#define MYPROJECT_LEARN_H_

#include "parameters.h"
#include "nnet_utils/nnet_som_learn.h"

// som: a Kohonen step of its codebook
struct learn_config2 : nnet::kohonen_config {
    static const unsigned n_in = 5;
    static const unsigned n_units = 12;
    static const unsigned n_rows = 3;
    static const unsigned n_cols = 4;
    static const unsigned distance = nnet::som_squared_euclidean;
    typedef ap_ufixed<43,13> accum_t;
    typedef ap_fixed<16,1,AP_RND,AP_SAT> codebook_t;
    typedef ap_ufixed<17,1,AP_RND,AP_SAT> neighbourhood_t;
    typedef ap_ufixed<17,1,AP_RND,AP_SAT> rate_t;
    typedef ap_ufixed<17,1,AP_RND,AP_SAT> factor_t;
};

void myproject_learn_som(const layer1_result_t data[5], const learn_config2::rate_t &rate,
    const learn_config2::neighbourhood_t row_table[3], const learn_config2::neighbourhood_t col_table[4],
    learn_config2::codebook_t codebook[60], unsigned &bmu);

#endif
