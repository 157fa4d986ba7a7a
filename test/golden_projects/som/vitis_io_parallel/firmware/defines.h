// Types of myproject: one typedef per layer variable (written by hls4ml; do not edit).
#ifndef DEFINES_H_
#define DEFINES_H_

#include "ap_fixed.h"
#include "ap_int.h"

typedef ap_fixed<16,6> layer1_result_t;
typedef ap_ufixed<4,4> layer2_result_t;
typedef ap_ufixed<43,13> layer2_accum_t;
typedef ap_fixed<16,1> layer2_codebook_t;
typedef ap_ufixed<1,1> layer2_label_t;
typedef ap_ufixed<16,1> layer2_table_t;

#define N_INPUT_1 5
#define N_OUTPUT_1 1
typedef layer1_result_t input_t;
typedef layer2_result_t result_t;

#endif
