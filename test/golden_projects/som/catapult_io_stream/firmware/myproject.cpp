// The top-level function of myproject (written by hls4ml; do not edit).
#include "myproject.h"
#include "parameters.h"

#ifndef __SYNTHESIS__
#include "nnet_utils/nnet_helpers.h"

// Trace hooks: the C-simulation bridge points these at its buffers (null: tracing off), per thread.
NNET_PERSISTENT nnet::trace_buffer myproject_trace_buffers[1];
#endif

#pragma hls_design top
void CCS_BLOCK(myproject)(
    ac_channel<nnet::array<layer1_result_t, 5>> &layer1_out,
    ac_channel<nnet::array<layer2_result_t, 1>> &layer2_out
) {
    NNET_DATAFLOW


    // som (SOM)
    nnet::som<nnet::array<layer1_result_t, 5>, nnet::array<layer2_result_t, 1>, config2>(layer1_out, layer2_out, w2, l2);
#ifndef __SYNTHESIS__
    nnet::trace_stream<nnet::array<layer2_result_t, 1>, 1>(layer2_out, myproject_trace_buffers[0]);
#endif
}
