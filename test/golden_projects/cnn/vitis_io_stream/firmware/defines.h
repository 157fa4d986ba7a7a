// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ap_fixed.h"
#include "ap_int.h"
#include "nnet_utils/nnet_types.h"

typedef ap_fixed<16,6> layer1_result_t;
typedef ap_fixed<16,6> layer2_result_t;
typedef ap_fixed<35,10> layer3_result_t;
typedef ap_fixed<35,10> layer3_accum_t;
typedef ap_fixed<16,1> layer3_weight_t;
typedef ap_ufixed<16,-1> layer3_bias_t;
typedef ap_fixed<16,6> layer4_result_t;
typedef ap_fixed<18,8> layer4_table_t;
typedef ap_fixed<16,6> layer5_result_t;
typedef ap_fixed<16,6> layer5_accum_t;
typedef ap_fixed<16,6> layer6_result_t;
typedef ap_fixed<34,9> layer6_accum_t;
typedef ap_fixed<16,1> layer6_weight_t;
typedef ap_fixed<16,1> layer6_bias_t;
typedef ap_fixed<16,6> layer7_result_t;
typedef ap_fixed<35,10> layer8_result_t;
typedef ap_fixed<35,10> layer8_accum_t;
typedef ap_fixed<16,1> layer8_weight_t;
typedef ap_ufixed<16,0> layer8_bias_t;

#define N_INPUT_1 72
#define N_OUTPUT_1 3
typedef nnet::array<layer1_result_t, 2> input_t;
typedef nnet::array<layer8_result_t, 3> result_t;

#endif
