// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#ifdef __INTEL_LLVM_COMPILER
#include <sycl/sycl.hpp>
#include <sycl/ext/intel/fpga_extensions.hpp>
#include <sycl/ext/intel/ac_types/ac_fixed.hpp>
#include <sycl/ext/intel/ac_types/ac_int.hpp>
#else
#include "ac_fixed.h"
#include "ac_int.h"
#endif
#include "nnet_utils/nnet_types.h"

typedef ac_fixed<16,6,true> layer1_result_t;
typedef ac_fixed<16,6,true> layer2_result_t;
typedef ac_fixed<16,6,true> layer3_result_t;
typedef ac_fixed<16,6,true> layer4_result_t;
typedef ac_fixed<16,6,true> layer5_result_t;
typedef ac_fixed<35,10,true> layer5_accum_t;
typedef ac_fixed<16,1,true> layer5_weight_t;
typedef ac_fixed<16,1,true> layer5_bias_t;
typedef ac_fixed<32,7,true> layer6_result_t;
typedef ac_fixed<16,1,false> layer6_scale_t;
typedef ac_fixed<16,2,true> layer6_bias_t;
typedef ac_fixed<16,6,true> layer7_result_t;
typedef ac_fixed<18,8,true> layer7_table_t;
typedef ac_fixed<16,6,true> layer8_result_t;
typedef ac_fixed<16,6,true> layer9_result_t;
typedef ac_fixed<36,11,true> layer9_accum_t;
typedef ac_fixed<16,1,true> layer9_weight_t;
typedef ac_fixed<16,1,true> layer9_bias_t;
typedef ac_fixed<32,8,true> layer10_result_t;
typedef ac_fixed<16,2,false> layer10_scale_t;
typedef ac_fixed<16,3,true> layer10_bias_t;
typedef ac_fixed<33,9,true> layer11_result_t;
typedef ac_fixed<16,6,true> layer12_result_t;
typedef ac_fixed<18,8,true> layer12_table_t;

#define N_INPUT_1 48
#define N_OUTPUT_1 48
typedef nnet::array<layer1_result_t, 4> input_t;
typedef nnet::array<layer12_result_t, 3> result_t;

#endif
