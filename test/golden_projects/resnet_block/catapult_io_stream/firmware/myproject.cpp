// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[10];
#endif

#pragma hls_design top
void CCS_BLOCK(myproject)(
    ac_channel<nnet::array<layer1_result_t, 4>> &layer1_out,
    ac_channel<nnet::array<layer12_result_t, 3>> &layer12_out
) {
    NNET_DATAFLOW

    ac_channel<nnet::array<layer2_result_t, 3>> layer2_out; // conv1_transpose
    NNET_STREAM_DEPTH(layer2_out, 2)
    ac_channel<nnet::array<layer5_result_t, 3>> layer5_out; // conv1
    NNET_STREAM_DEPTH(layer5_out, 2)
    ac_channel<nnet::array<layer6_result_t, 3>> layer6_out; // bn1
    NNET_STREAM_DEPTH(layer6_out, 2)
    ac_channel<nnet::array<layer7_result_t, 3>> layer7_out; // relu1
    NNET_STREAM_DEPTH(layer7_out, 2)
    ac_channel<nnet::array<layer9_result_t, 3>> layer9_out; // conv2
    NNET_STREAM_DEPTH(layer9_out, 2)
    ac_channel<nnet::array<layer10_result_t, 3>> layer10_out; // bn2
    NNET_STREAM_DEPTH(layer10_out, 2)
    ac_channel<nnet::array<layer11_result_t, 3>> layer11_out; // add
    NNET_STREAM_DEPTH(layer11_out, 2)
    ac_channel<nnet::array<layer4_result_t, 3>> layer4_out; // conv1_pad
    NNET_STREAM_DEPTH(layer4_out, 2)
    ac_channel<nnet::array<layer8_result_t, 3>> layer8_out; // conv2_pad
    NNET_STREAM_DEPTH(layer8_out, 2)
    ac_channel<nnet::array<layer3_result_t, 3>> layer3_out; // conv1_transpose_clone
    NNET_STREAM_DEPTH(layer3_out, 2)
    ac_channel<nnet::array<layer3_result_t, 3>> layer3_out2; // conv1_transpose_clone
    NNET_STREAM_DEPTH(layer3_out2, 16)

    // conv1_transpose (Transpose)
    nnet::transpose<nnet::array<layer1_result_t, 4>, nnet::array<layer2_result_t, 3>, config2>(layer1_out, layer2_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer2_result_t, 3>, 16>(layer2_out, myproject_trace_buffers[0]);
#endif
    // conv1_transpose_clone (Clone)
    nnet::clone<nnet::array<layer2_result_t, 3>, nnet::array<layer3_result_t, 3>, config3>(layer2_out, layer3_out, layer3_out2);
    // conv1_pad (ZeroPadding2D)
    nnet::zeropad<nnet::array<layer3_result_t, 3>, nnet::array<layer4_result_t, 3>, config4>(layer3_out, layer4_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer4_result_t, 3>, 36>(layer4_out, myproject_trace_buffers[1]);
#endif
    // conv1 (Conv2D)
    nnet::conv<nnet::array<layer4_result_t, 3>, nnet::array<layer5_result_t, 3>, config5>(layer4_out, layer5_out, w5, b5);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer5_result_t, 3>, 16>(layer5_out, myproject_trace_buffers[2]);
#endif
    // bn1 (BatchNormalization)
    nnet::normalize<nnet::array<layer5_result_t, 3>, nnet::array<layer6_result_t, 3>, config6>(layer5_out, layer6_out, s6, b6);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer6_result_t, 3>, 16>(layer6_out, myproject_trace_buffers[3]);
#endif
    // relu1 (Activation)
    nnet::relu<nnet::array<layer6_result_t, 3>, nnet::array<layer7_result_t, 3>, config7>(layer6_out, layer7_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer7_result_t, 3>, 16>(layer7_out, myproject_trace_buffers[4]);
#endif
    // conv2_pad (ZeroPadding2D)
    nnet::zeropad<nnet::array<layer7_result_t, 3>, nnet::array<layer8_result_t, 3>, config8>(layer7_out, layer8_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer8_result_t, 3>, 36>(layer8_out, myproject_trace_buffers[5]);
#endif
    // conv2 (Conv2D)
    nnet::conv<nnet::array<layer8_result_t, 3>, nnet::array<layer9_result_t, 3>, config9>(layer8_out, layer9_out, w9, b9);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer9_result_t, 3>, 16>(layer9_out, myproject_trace_buffers[6]);
#endif
    // bn2 (BatchNormalization)
    nnet::normalize<nnet::array<layer9_result_t, 3>, nnet::array<layer10_result_t, 3>, config10>(layer9_out, layer10_out, s10, b10);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer10_result_t, 3>, 16>(layer10_out, myproject_trace_buffers[7]);
#endif
    // add (Merge)
    nnet::add<nnet::array<layer10_result_t, 3>, nnet::array<layer3_result_t, 3>, nnet::array<layer11_result_t, 3>, config11>(layer10_out, layer3_out2, layer11_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer11_result_t, 3>, 16>(layer11_out, myproject_trace_buffers[8]);
#endif
    // relu2 (Activation)
    nnet::relu<nnet::array<layer11_result_t, 3>, nnet::array<layer12_result_t, 3>, config12>(layer11_out, layer12_out);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer12_result_t, 3>, 16>(layer12_out, myproject_trace_buffers[9]);
#endif
}
