// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[4];
#endif

#pragma hls_design top
void CCS_BLOCK(myproject)(
    ac_channel<nnet::array<layer1_result_t, 6>> &layer1_out,
    ac_channel<nnet::array<layer5_result_t, 4>> &layer5_out
) {
    NNET_DATAFLOW

    ac_channel<nnet::array<layer2_result_t, 8>> layer2_out; // fc1
    NNET_STREAM_DEPTH(layer2_out, 2)
    ac_channel<nnet::array<layer3_result_t, 8>> layer3_out; // fc1_relu
    NNET_STREAM_DEPTH(layer3_out, 2)
    ac_channel<nnet::array<layer4_result_t, 4>> layer4_out; // fc2
    NNET_STREAM_DEPTH(layer4_out, 2)

    // fc1 (Dense)
    nnet::dense<nnet::array<layer1_result_t, 6>, nnet::array<layer2_result_t, 8>, config2>(layer1_out, layer2_out, w2, b2);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer2_result_t, 8>, 1>(layer2_out, myproject_trace_buffers[0]);
#endif
    // fc1_relu (Activation)
    nnet::relu<nnet::array<layer2_result_t, 8>, nnet::array<layer3_result_t, 8>, config3>(layer2_out, layer3_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer3_result_t, 8>, 1>(layer3_out, myproject_trace_buffers[1]);
#endif
    // fc2 (Dense)
    nnet::dense<nnet::array<layer3_result_t, 8>, nnet::array<layer4_result_t, 4>, config4>(layer3_out, layer4_out, w4, b4);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer4_result_t, 4>, 1>(layer4_out, myproject_trace_buffers[2]);
#endif
    // fc2_softmax (Softmax)
    nnet::softmax_stable<nnet::array<layer4_result_t, 4>, nnet::array<layer5_result_t, 4>, config5>(layer4_out, layer5_out, exp_table5, inv_table5);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer5_result_t, 4>, 1>(layer5_out, myproject_trace_buffers[3]);
#endif
}
