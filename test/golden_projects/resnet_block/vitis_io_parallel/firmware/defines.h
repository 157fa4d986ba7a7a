// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ap_fixed.h"
#include "ap_int.h"

typedef ap_fixed<16,6> layer1_result_t;
typedef ap_fixed<16,6> layer2_result_t;
typedef ap_fixed<16,6> layer3_result_t;
typedef ap_fixed<35,10> layer3_accum_t;
typedef ap_fixed<16,1> layer3_weight_t;
typedef ap_fixed<16,1> layer3_bias_t;
typedef ap_fixed<32,7> layer4_result_t;
typedef ap_ufixed<16,1> layer4_scale_t;
typedef ap_fixed<16,2> layer4_bias_t;
typedef ap_fixed<16,6> layer5_result_t;
typedef ap_fixed<18,8> layer5_table_t;
typedef ap_fixed<16,6> layer6_result_t;
typedef ap_fixed<36,11> layer6_accum_t;
typedef ap_fixed<16,1> layer6_weight_t;
typedef ap_fixed<16,1> layer6_bias_t;
typedef ap_fixed<32,8> layer7_result_t;
typedef ap_ufixed<16,2> layer7_scale_t;
typedef ap_fixed<16,3> layer7_bias_t;
typedef ap_fixed<33,9> layer8_result_t;
typedef ap_fixed<16,6> layer9_result_t;
typedef ap_fixed<18,8> layer9_table_t;

#define N_INPUT_1 48
#define N_OUTPUT_1 48
typedef layer1_result_t input_t;
typedef layer9_result_t result_t;

#endif
