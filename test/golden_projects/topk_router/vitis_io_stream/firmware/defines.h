// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ap_fixed.h"
#include "ap_int.h"
#include "nnet_utils/nnet_types.h"

typedef ap_fixed<16,6> layer1_result_t;
typedef ap_fixed<33,8> layer2_result_t;
typedef ap_fixed<33,8> layer2_accum_t;
typedef ap_fixed<16,1> layer2_weight_t;
typedef ap_ufixed<16,0> layer2_bias_t;
typedef ap_fixed<16,6> layer3_result_t;
typedef ap_fixed<18,8,AP_RND,AP_SAT> layer3_exp_table_t;
typedef ap_fixed<18,8,AP_RND,AP_SAT> layer3_inv_table_t;
typedef ap_fixed<18,8,AP_RND,AP_SAT> layer3_accum_t;

#define N_INPUT_1 4
#define N_OUTPUT_1 8
typedef nnet::array<layer1_result_t, 4> input_t;
typedef nnet::array<layer3_result_t, 8> result_t;

#endif
