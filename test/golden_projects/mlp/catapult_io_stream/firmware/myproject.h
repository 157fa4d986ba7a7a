// The top-level function of myproject (written by hls4ml; do not edit).
#ifndef MYPROJECT_H_
#define MYPROJECT_H_

#include "defines.h"

void CCS_BLOCK(myproject)(
    ac_channel<nnet::array<layer1_result_t, 6>> &layer1_out,
    ac_channel<nnet::array<layer5_result_t, 4>> &layer5_out
);

#endif
