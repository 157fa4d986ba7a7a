// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ac_fixed.h"
#include "ac_int.h"

// Catapult's verification macros: SCVerify wraps the top function (CCS_BLOCK) and its call in the
// testbench (CCS_DESIGN, CCS_MAIN, CCS_RETURN). Without mc_scverify.h they name plain C++.
#if defined(__has_include)
#if __has_include(<mc_scverify.h>)
#define HLS4ML_HAS_SCVERIFY
#endif
#endif
#ifdef HLS4ML_HAS_SCVERIFY
#include <mc_scverify.h>
#else
#define CCS_BLOCK(name) name
#define CCS_DESIGN(name) name
#define CCS_MAIN(argc, argv) int main(argc, argv)
#define CCS_RETURN(value) return value
#endif
#include "nnet_utils/nnet_types.h"

typedef ac_fixed<16,6,true> layer1_result_t;
typedef ac_fixed<33,8,true> layer2_result_t;
typedef ac_fixed<33,8,true> layer2_accum_t;
typedef ac_fixed<16,1,true> layer2_weight_t;
typedef ac_fixed<16,1,true> layer2_bias_t;
typedef ac_fixed<16,6,true> layer3_result_t;
typedef ac_fixed<18,8,true> layer3_table_t;
typedef ac_fixed<34,9,true> layer4_result_t;
typedef ac_fixed<34,9,true> layer4_accum_t;
typedef ac_fixed<16,1,true> layer4_weight_t;
typedef ac_fixed<16,1,true> layer4_bias_t;
typedef ac_fixed<16,6,true> layer5_result_t;
typedef ac_fixed<18,8,true,AC_RND,AC_SAT> layer5_exp_table_t;
typedef ac_fixed<18,8,true,AC_RND,AC_SAT> layer5_inv_table_t;
typedef ac_fixed<18,8,true,AC_RND,AC_SAT> layer5_accum_t;

#define N_INPUT_1 6
#define N_OUTPUT_1 4
typedef nnet::array<layer1_result_t, 6> input_t;
typedef nnet::array<layer5_result_t, 4> result_t;

#endif
