// The top-level function of myproject (written by hls4ml; do not edit).
#ifndef MYPROJECT_H_
#define MYPROJECT_H_

#include "defines.h"

void myproject(
    hls::stream<nnet::array<layer1_result_t, 6>> &layer1_out,
    hls::stream<nnet::array<layer5_result_t, 4>> &layer5_out
);

#endif
