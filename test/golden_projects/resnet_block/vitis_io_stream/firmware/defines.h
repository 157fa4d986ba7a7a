// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ap_fixed.h"
#include "ap_int.h"
#include "nnet_utils/nnet_types.h"

typedef ap_fixed<16,6> layer1_result_t;
typedef ap_fixed<16,6> layer2_result_t;
typedef ap_fixed<16,6> layer3_result_t;
typedef ap_fixed<16,6> layer4_result_t;
typedef ap_fixed<16,6> layer5_result_t;
typedef ap_fixed<35,10> layer5_accum_t;
typedef ap_fixed<16,1> layer5_weight_t;
typedef ap_fixed<16,1> layer5_bias_t;
typedef ap_fixed<32,7> layer6_result_t;
typedef ap_ufixed<16,1> layer6_scale_t;
typedef ap_fixed<16,2> layer6_bias_t;
typedef ap_fixed<16,6> layer7_result_t;
typedef ap_fixed<18,8> layer7_table_t;
typedef ap_fixed<16,6> layer8_result_t;
typedef ap_fixed<16,6> layer9_result_t;
typedef ap_fixed<36,11> layer9_accum_t;
typedef ap_fixed<16,1> layer9_weight_t;
typedef ap_fixed<16,1> layer9_bias_t;
typedef ap_fixed<32,8> layer10_result_t;
typedef ap_ufixed<16,2> layer10_scale_t;
typedef ap_fixed<16,3> layer10_bias_t;
typedef ap_fixed<33,9> layer11_result_t;
typedef ap_fixed<16,6> layer12_result_t;
typedef ap_fixed<18,8> layer12_table_t;

#define N_INPUT_1 48
#define N_OUTPUT_1 48
typedef nnet::array<layer1_result_t, 4> input_t;
typedef nnet::array<layer12_result_t, 3> result_t;

#endif
