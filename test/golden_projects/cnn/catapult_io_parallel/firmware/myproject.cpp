// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[6];
#endif

#pragma hls_design top
void CCS_BLOCK(myproject)(
    const layer1_result_t layer1_out[72],
    layer7_result_t layer7_out[3]
) {
    NNET_PIPELINE(1)

    layer2_result_t layer2_out[108]; // conv1
    NNET_ARRAY_PARTITION_COMPLETE(layer2_out)
    layer3_result_t layer3_out[108]; // conv1_relu
    NNET_ARRAY_PARTITION_COMPLETE(layer3_out)
    layer4_result_t layer4_out[27]; // pool
    NNET_ARRAY_PARTITION_COMPLETE(layer4_out)
    layer5_result_t layer5_out[16]; // conv2
    NNET_ARRAY_PARTITION_COMPLETE(layer5_out)
    layer6_result_t layer6_out[16]; // flatten
    NNET_ARRAY_PARTITION_COMPLETE(layer6_out)

    // conv1 (Conv2D)
    nnet::conv<layer1_result_t, layer2_result_t, config2>(layer1_out, layer2_out, w2, b2);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer2_result_t, 108>(layer2_out, myproject_trace_buffers[0]);
#endif
    // conv1_relu (Activation)
    nnet::relu<layer2_result_t, layer3_result_t, config3>(layer2_out, layer3_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer3_result_t, 108>(layer3_out, myproject_trace_buffers[1]);
#endif
    // pool (Pooling2D)
    nnet::pooling<layer3_result_t, layer4_result_t, config4>(layer3_out, layer4_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer4_result_t, 27>(layer4_out, myproject_trace_buffers[2]);
#endif
    // conv2 (Conv2D)
    nnet::conv<layer4_result_t, layer5_result_t, config5>(layer4_out, layer5_out, w5, b5);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer5_result_t, 16>(layer5_out, myproject_trace_buffers[3]);
#endif
    // flatten (Reshape)
    nnet::copy<layer5_result_t, layer6_result_t, config6>(layer5_out, layer6_out);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer6_result_t, 16>(layer6_out, myproject_trace_buffers[4]);
#endif
    // fc (Dense)
    nnet::dense<layer6_result_t, layer7_result_t, config7>(layer6_out, layer7_out, w7, b7);
#ifndef __SYNTHESIS__
    nnet::trace_output<layer7_result_t, 3>(layer7_out, myproject_trace_buffers[5]);
#endif
}
