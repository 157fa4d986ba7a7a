// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[4];
#endif

void myproject(
    const layer1_result_t layer1_out[6],
    layer5_result_t layer5_out[4]
) {
    #pragma HLS ARRAY_RESHAPE variable=layer1_out complete dim=0
    #pragma HLS INTERFACE ap_vld port=layer1_out
    #pragma HLS ARRAY_PARTITION variable=layer5_out complete dim=0
    #pragma HLS INTERFACE ap_vld port=layer5_out
    #pragma HLS DATAFLOW

    layer2_result_t layer2_out[8]; // fc1
    #pragma HLS ARRAY_PARTITION variable=layer2_out complete
    layer3_result_t layer3_out[8]; // fc1_relu
    #pragma HLS ARRAY_PARTITION variable=layer3_out complete
    layer4_result_t layer4_out[4]; // fc2
    #pragma HLS ARRAY_PARTITION variable=layer4_out complete

    // fc1 (Dense)
    nnet::dense<layer1_result_t, layer2_result_t, config2>(layer1_out, layer2_out, w2, b2);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer2_result_t, 8>(layer2_out, myproject_trace_buffers[0]);
#endif
    // fc1_relu (Activation)
    nnet::relu<layer2_result_t, layer3_result_t, config3>(layer2_out, layer3_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer3_result_t, 8>(layer3_out, myproject_trace_buffers[1]);
#endif
    // fc2 (Dense)
    nnet::dense<layer3_result_t, layer4_result_t, config4>(layer3_out, layer4_out, w4, b4);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer4_result_t, 4>(layer4_out, myproject_trace_buffers[2]);
#endif
    // fc2_softmax (Softmax)
    nnet::softmax_stable<layer4_result_t, layer5_result_t, config5>(layer4_out, layer5_out, exp_table5, inv_table5);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer5_result_t, 4>(layer5_out, myproject_trace_buffers[3]);
#endif
}
