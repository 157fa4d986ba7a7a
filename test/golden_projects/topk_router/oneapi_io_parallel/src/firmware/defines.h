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
