// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[2];
#endif

void myproject(
    const layer1_result_t layer1_out[4],
    layer3_result_t layer3_out[8]
) {
    #pragma HLS ARRAY_RESHAPE variable=layer1_out complete dim=0
    #pragma HLS INTERFACE ap_vld port=layer1_out
    #pragma HLS ARRAY_PARTITION variable=layer3_out complete dim=0
    #pragma HLS INTERFACE ap_vld port=layer3_out
    #pragma HLS PIPELINE II=1

    layer2_result_t layer2_out[8]; // router_gate
    #pragma HLS ARRAY_PARTITION variable=layer2_out complete

    // router_gate (Dense)
    nnet::dense<layer1_result_t, layer2_result_t, config2>(layer1_out, layer2_out, w2, b2);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer2_result_t, 8>(layer2_out, myproject_trace_buffers[0]);
#endif
    // router (Router)
    nnet::router<layer2_result_t, layer3_result_t, config3>(layer2_out, layer3_out, exp_table3, inv_table3);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer3_result_t, 8>(layer3_out, myproject_trace_buffers[1]);
#endif
}
