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
typedef ac_fixed<4,4,false> layer2_result_t;
typedef ac_fixed<43,13,false> layer2_accum_t;
typedef ac_fixed<16,1,true> layer2_codebook_t;
typedef ac_fixed<1,1,false> layer2_label_t;
typedef ac_fixed<16,1,false> layer2_table_t;

#define N_INPUT_1 5
#define N_OUTPUT_1 1
typedef nnet::array<layer1_result_t, 5> input_t;
typedef nnet::array<layer2_result_t, 1> result_t;

#endif
