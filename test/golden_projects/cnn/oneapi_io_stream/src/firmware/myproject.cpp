// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[7];
#endif

void myproject(
    nnet::stream<nnet::array<layer1_result_t, 2>> &layer1_out,
    nnet::stream<nnet::array<layer8_result_t, 3>> &layer8_out
) {
    NNET_DATAFLOW

    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out("layer3_out"); // conv1
    NNET_STREAM_DEPTH(layer3_out, 2)
    nnet::stream<nnet::array<layer4_result_t, 3>> layer4_out("layer4_out"); // conv1_relu
    NNET_STREAM_DEPTH(layer4_out, 2)
    nnet::stream<nnet::array<layer5_result_t, 3>> layer5_out("layer5_out"); // pool
    NNET_STREAM_DEPTH(layer5_out, 2)
    nnet::stream<nnet::array<layer6_result_t, 4>> layer6_out("layer6_out"); // conv2
    NNET_STREAM_DEPTH(layer6_out, 2)
    nnet::stream<nnet::array<layer7_result_t, 16>> layer7_out("layer7_out"); // flatten
    NNET_STREAM_DEPTH(layer7_out, 2)
    nnet::stream<nnet::array<layer2_result_t, 2>> layer2_out("layer2_out"); // conv1_pad
    NNET_STREAM_DEPTH(layer2_out, 2)

    // conv1_pad (ZeroPadding2D)
    nnet::zeropad<nnet::array<layer1_result_t, 2>, nnet::array<layer2_result_t, 2>, config2>(layer1_out, layer2_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer2_result_t, 2>, 64>(layer2_out, myproject_trace_buffers[0]);
#endif
    // conv1 (Conv2D)
    nnet::conv<nnet::array<layer2_result_t, 2>, nnet::array<layer3_result_t, 3>, config3>(layer2_out, layer3_out, w3, b3);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer3_result_t, 3>, 36>(layer3_out, myproject_trace_buffers[1]);
#endif
    // conv1_relu (Activation)
    nnet::relu<nnet::array<layer3_result_t, 3>, nnet::array<layer4_result_t, 3>, config4>(layer3_out, layer4_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer4_result_t, 3>, 36>(layer4_out, myproject_trace_buffers[2]);
#endif
    // pool (Pooling2D)
    nnet::pooling<nnet::array<layer4_result_t, 3>, nnet::array<layer5_result_t, 3>, config5>(layer4_out, layer5_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer5_result_t, 3>, 9>(layer5_out, myproject_trace_buffers[3]);
#endif
    // conv2 (Conv2D)
    nnet::conv<nnet::array<layer5_result_t, 3>, nnet::array<layer6_result_t, 4>, config6>(layer5_out, layer6_out, w6, b6);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer6_result_t, 4>, 4>(layer6_out, myproject_trace_buffers[4]);
#endif
    // flatten (Reshape)
    nnet::repack<nnet::array<layer6_result_t, 4>, nnet::array<layer7_result_t, 16>, config7>(layer6_out, layer7_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer7_result_t, 16>, 1>(layer7_out, myproject_trace_buffers[5]);
#endif
    // fc (Dense)
    nnet::dense<nnet::array<layer7_result_t, 16>, nnet::array<layer8_result_t, 3>, config8>(layer7_out, layer8_out, w8, b8);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer8_result_t, 3>, 1>(layer8_out, myproject_trace_buffers[6]);
#endif
}
