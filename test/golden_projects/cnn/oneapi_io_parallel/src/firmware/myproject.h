// The top-level function of myproject (written by hls4ml; do not edit).
#ifndef MYPROJECT_H_
#define MYPROJECT_H_

#include "defines.h"

void myproject(
    const layer1_result_t layer1_out[72],
    layer7_result_t layer7_out[3]
);

#endif
