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
    typedef ac_fixed<43,13,false> accum_t;
    typedef ac_fixed<16,1,true,AC_RND,AC_SAT> codebook_t;
    typedef ac_fixed<17,1,false,AC_RND,AC_SAT> neighbourhood_t;
    typedef ac_fixed<17,1,false,AC_RND,AC_SAT> rate_t;
    typedef ac_fixed<17,1,false,AC_RND,AC_SAT> factor_t;
};

void myproject_learn_som(const layer1_result_t data[5], const learn_config2::rate_t &rate,
    const learn_config2::neighbourhood_t row_table[3], const learn_config2::neighbourhood_t col_table[4],
    learn_config2::codebook_t codebook[60], unsigned &bmu);

#endif
