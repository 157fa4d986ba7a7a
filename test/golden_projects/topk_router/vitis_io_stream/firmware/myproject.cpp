// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[2];
#endif

void myproject(
    hls::stream<nnet::array<layer1_result_t, 4>> &layer1_out,
    hls::stream<nnet::array<layer3_result_t, 8>> &layer3_out
) {
    #pragma HLS INTERFACE axis port=layer1_out
    #pragma HLS INTERFACE axis port=layer3_out
    #pragma HLS DATAFLOW

    hls::stream<nnet::array<layer2_result_t, 8>> layer2_out("layer2_out"); // router_gate
    #pragma HLS STREAM variable=layer2_out depth=2

    // router_gate (Dense)
    nnet::dense<nnet::array<layer1_result_t, 4>, nnet::array<layer2_result_t, 8>, config2>(layer1_out, layer2_out, w2, b2);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer2_result_t, 8>, 1>(layer2_out, myproject_trace_buffers[0]);
#endif
    // router (Router)
    nnet::router<nnet::array<layer2_result_t, 8>, nnet::array<layer3_result_t, 8>, config3>(layer2_out, layer3_out, exp_table3, inv_table3);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer3_result_t, 8>, 1>(layer3_out, myproject_trace_buffers[1]);
#endif
}
