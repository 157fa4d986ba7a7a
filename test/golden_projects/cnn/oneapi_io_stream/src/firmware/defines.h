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
typedef ac_fixed<35,10,true> layer3_result_t;
typedef ac_fixed<35,10,true> layer3_accum_t;
typedef ac_fixed<16,1,true> layer3_weight_t;
typedef ac_fixed<16,-1,false> layer3_bias_t;
typedef ac_fixed<16,6,true> layer4_result_t;
typedef ac_fixed<18,8,true> layer4_table_t;
typedef ac_fixed<16,6,true> layer5_result_t;
typedef ac_fixed<16,6,true> layer5_accum_t;
typedef ac_fixed<16,6,true> layer6_result_t;
typedef ac_fixed<34,9,true> layer6_accum_t;
typedef ac_fixed<16,1,true> layer6_weight_t;
typedef ac_fixed<16,1,true> layer6_bias_t;
typedef ac_fixed<16,6,true> layer7_result_t;
typedef ac_fixed<35,10,true> layer8_result_t;
typedef ac_fixed<35,10,true> layer8_accum_t;
typedef ac_fixed<16,1,true> layer8_weight_t;
typedef ac_fixed<16,0,false> layer8_bias_t;

#define N_INPUT_1 72
#define N_OUTPUT_1 3
typedef nnet::array<layer1_result_t, 2> input_t;
typedef nnet::array<layer8_result_t, 3> result_t;

#endif
