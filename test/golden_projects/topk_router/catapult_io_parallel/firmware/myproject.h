// The top-level function of myproject (written by hls4ml; do not edit).
#ifndef MYPROJECT_H_
#define MYPROJECT_H_

#include "defines.h"

void CCS_BLOCK(myproject)(
    const layer1_result_t layer1_out[4],
    layer3_result_t layer3_out[8]
);

#endif
