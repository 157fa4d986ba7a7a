// The top-level function of myproject (written by hls4ml; do not edit).
#ifndef MYPROJECT_H_
#define MYPROJECT_H_

#include "defines.h"

void myproject(
    const layer1_result_t layer1_out[5],
    layer2_result_t layer2_out[1]
);

#endif
