// The top-level function of myproject (written by hls4ml; do not edit).
#ifndef MYPROJECT_H_
#define MYPROJECT_H_

#include "defines.h"

void myproject(
    hls::stream<nnet::array<layer1_result_t, 2>> &layer1_out,
    hls::stream<nnet::array<layer8_result_t, 3>> &layer8_out
);

#endif
