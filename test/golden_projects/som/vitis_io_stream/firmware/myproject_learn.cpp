// The learning top functions of myproject (written by hls4ml; do not edit). Each is a top
// function of its own: synthesise it with its name as the top. The rates and neighbourhood tables
// come from the host, which keeps the schedules (docs/som.md, "On-chip learning").
#include "myproject_learn.h"

void myproject_learn_som(const layer1_result_t data[5], const learn_config2::rate_t &rate,
    const learn_config2::neighbourhood_t row_table[3], const learn_config2::neighbourhood_t col_table[4],
    learn_config2::codebook_t codebook[60], unsigned &bmu) {
    #pragma HLS INTERFACE ap_memory port=codebook
    bmu = nnet::kohonen_update<layer1_result_t, learn_config2>(data, codebook, row_table, col_table, rate);
}

