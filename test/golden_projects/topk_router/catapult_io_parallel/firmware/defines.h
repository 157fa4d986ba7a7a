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

typedef ac_fixed<16,6,true> layer1_result_t;
typedef ac_fixed<33,8,true> layer2_result_t;
typedef ac_fixed<33,8,true> layer2_accum_t;
typedef ac_fixed<16,1,true> layer2_weight_t;
typedef ac_fixed<16,0,false> layer2_bias_t;
typedef ac_fixed<16,6,true> layer3_result_t;
typedef ac_fixed<18,8,true,AC_RND,AC_SAT> layer3_exp_table_t;
typedef ac_fixed<18,8,true,AC_RND,AC_SAT> layer3_inv_table_t;
typedef ac_fixed<18,8,true,AC_RND,AC_SAT> layer3_accum_t;

#define N_INPUT_1 4
#define N_OUTPUT_1 8
typedef layer1_result_t input_t;
typedef layer3_result_t result_t;

#endif
