// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[8];
#endif

void myproject(
    const layer1_result_t layer1_out[48],
    layer9_result_t layer9_out[48]
) {
    NNET_PIPELINE(1)

    layer2_result_t layer2_out[48]; // conv1_transpose
    NNET_ARRAY_PARTITION_COMPLETE(layer2_out)
    layer3_result_t layer3_out[48]; // conv1
    NNET_ARRAY_PARTITION_COMPLETE(layer3_out)
    layer4_result_t layer4_out[48]; // bn1
    NNET_ARRAY_PARTITION_COMPLETE(layer4_out)
    layer5_result_t layer5_out[48]; // relu1
    NNET_ARRAY_PARTITION_COMPLETE(layer5_out)
    layer6_result_t layer6_out[48]; // conv2
    NNET_ARRAY_PARTITION_COMPLETE(layer6_out)
    layer7_result_t layer7_out[48]; // bn2
    NNET_ARRAY_PARTITION_COMPLETE(layer7_out)
    layer8_result_t layer8_out[48]; // add
    NNET_ARRAY_PARTITION_COMPLETE(layer8_out)

    // conv1_transpose (Transpose)
    nnet::transpose<layer1_result_t, layer2_result_t, config2>(layer1_out, layer2_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer2_result_t, 48>(layer2_out, myproject_trace_buffers[0]);
#endif
    // conv1 (Conv2D)
    nnet::conv<layer2_result_t, layer3_result_t, config3>(layer2_out, layer3_out, w3, b3);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer3_result_t, 48>(layer3_out, myproject_trace_buffers[1]);
#endif
    // bn1 (BatchNormalization)
    nnet::normalize<layer3_result_t, layer4_result_t, config4>(layer3_out, layer4_out, s4, b4);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer4_result_t, 48>(layer4_out, myproject_trace_buffers[2]);
#endif
    // relu1 (Activation)
    nnet::relu<layer4_result_t, layer5_result_t, config5>(layer4_out, layer5_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer5_result_t, 48>(layer5_out, myproject_trace_buffers[3]);
#endif
    // conv2 (Conv2D)
    nnet::conv<layer5_result_t, layer6_result_t, config6>(layer5_out, layer6_out, w6, b6);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer6_result_t, 48>(layer6_out, myproject_trace_buffers[4]);
#endif
    // bn2 (BatchNormalization)
    nnet::normalize<layer6_result_t, layer7_result_t, config7>(layer6_out, layer7_out, s7, b7);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer7_result_t, 48>(layer7_out, myproject_trace_buffers[5]);
#endif
    // add (Merge)
    nnet::add<layer7_result_t, layer2_result_t, layer8_result_t, config8>(layer7_out, layer2_out, layer8_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer8_result_t, 48>(layer8_out, myproject_trace_buffers[6]);
#endif
    // relu2 (Activation)
    nnet::relu<layer8_result_t, layer9_result_t, config9>(layer8_out, layer9_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer9_result_t, 48>(layer9_out, myproject_trace_buffers[7]);
#endif
}
