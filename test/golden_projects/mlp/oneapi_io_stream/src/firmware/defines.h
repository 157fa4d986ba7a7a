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
