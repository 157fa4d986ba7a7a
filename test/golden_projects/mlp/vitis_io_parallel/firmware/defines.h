// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ap_fixed.h"
#include "ap_int.h"

typedef ap_fixed<16,6> layer1_result_t;
typedef ap_fixed<33,8> layer2_result_t;
typedef ap_fixed<33,8> layer2_accum_t;
typedef ap_fixed<16,1> layer2_weight_t;
typedef ap_fixed<16,1> layer2_bias_t;
typedef ap_fixed<16,6> layer3_result_t;
typedef ap_fixed<18,8> layer3_table_t;
typedef ap_fixed<34,9> layer4_result_t;
typedef ap_fixed<34,9> layer4_accum_t;
typedef ap_fixed<16,1> layer4_weight_t;
typedef ap_fixed<16,1> layer4_bias_t;
typedef ap_fixed<16,6> layer5_result_t;
typedef ap_fixed<18,8,AP_RND,AP_SAT> layer5_exp_table_t;
typedef ap_fixed<18,8,AP_RND,AP_SAT> layer5_inv_table_t;
typedef ap_fixed<18,8,AP_RND,AP_SAT> layer5_accum_t;

#define N_INPUT_1 6
#define N_OUTPUT_1 4
typedef layer1_result_t input_t;
typedef layer5_result_t result_t;

#endif
