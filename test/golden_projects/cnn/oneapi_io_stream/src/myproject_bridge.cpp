// C-simulation bridge of myproject: the whole batch in one call from Python (written by hls4ml).
// Inputs and outputs are (n_samples, size) arrays of doubles, one pointer per port; see hls4ml/csim.
// Kernel state and trace hooks are per thread here (NNET_PERSISTENT), so threads may call in at once.
#define HLS4ML_CSIM_THREADS
#include "firmware/myproject.cpp"

#define HLS4ML_EXPORT extern "C" __attribute__((visibility("default")))

static void myproject_run(const double *const *inputs, double *const *outputs, void *const *traces,
                        bool single, long n_samples) {
    for (long sample = 0; sample < n_samples; sample++) {
        const double *source0 = inputs[0] + sample * 72;
        nnet::stream<nnet::array<layer1_result_t, 2>> in0("in0");
        nnet::write_stream<nnet::array<layer1_result_t, 2>, 36>(source0, in0);
        nnet::stream<nnet::array<layer8_result_t, 3>> out0("out0");
        myproject_trace_buffers[0] = nnet::trace_row(traces ? traces[0] : nullptr, single, sample * 128);
        myproject_trace_buffers[1] = nnet::trace_row(traces ? traces[1] : nullptr, single, sample * 108);
        myproject_trace_buffers[2] = nnet::trace_row(traces ? traces[2] : nullptr, single, sample * 108);
        myproject_trace_buffers[3] = nnet::trace_row(traces ? traces[3] : nullptr, single, sample * 27);
        myproject_trace_buffers[4] = nnet::trace_row(traces ? traces[4] : nullptr, single, sample * 16);
        myproject_trace_buffers[5] = nnet::trace_row(traces ? traces[5] : nullptr, single, sample * 16);
        myproject_trace_buffers[6] = nnet::trace_row(traces ? traces[6] : nullptr, single, sample * 3);
        myproject(in0, out0);
        double *target0 = outputs[0] + sample * 3;
        nnet::read_stream<nnet::array<layer8_result_t, 3>, 1>(out0, target0);
    }
    myproject_trace_buffers[0] = nnet::trace_row(nullptr, false, 0);
    myproject_trace_buffers[1] = nnet::trace_row(nullptr, false, 0);
    myproject_trace_buffers[2] = nnet::trace_row(nullptr, false, 0);
    myproject_trace_buffers[3] = nnet::trace_row(nullptr, false, 0);
    myproject_trace_buffers[4] = nnet::trace_row(nullptr, false, 0);
    myproject_trace_buffers[5] = nnet::trace_row(nullptr, false, 0);
    myproject_trace_buffers[6] = nnet::trace_row(nullptr, false, 0);
}

// The buffer sizes this library was built for; Python checks them before the first call.
HLS4ML_EXPORT const char *myproject_ports() {
    return "inputs 72; outputs 3; traces 128,108,108,27,16,16,3";
}

HLS4ML_EXPORT void myproject_predict(const double *const *inputs, double *const *outputs, long n_samples) {
    myproject_run(inputs, outputs, nullptr, false, n_samples);
}

// Traces into arrays of floats when `single` is nonzero, else of doubles (the caller's dtype).
HLS4ML_EXPORT void myproject_trace(const double *const *inputs, double *const *outputs, void *const *traces,
                              int single, long n_samples) {
    myproject_run(inputs, outputs, traces, single != 0, n_samples);
}
