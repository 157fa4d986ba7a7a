// C-simulation bridge of myproject: the whole batch in one call from Python (written by hls4ml).
// Inputs and outputs are (n_samples, size) arrays of doubles, one pointer per port; see hls4ml/csim.
// Kernel state and trace hooks are per thread here (NNET_PERSISTENT), so threads may call in at once.
#define HLS4ML_CSIM_THREADS
#include "firmware/myproject.cpp"

#define HLS4ML_EXPORT extern "C" __attribute__((visibility("default")))
// The values each trace buffer takes per sample (a table and one loop: one statement per traced layer was
// most of this file's compile time).
static const long myproject_trace_sizes[8] = {48, 48, 48, 48, 48, 48, 48, 48};

static void myproject_run(const double *const *inputs, double *const *outputs, void *const *traces,
                        bool single, long n_samples) {
    for (long sample = 0; sample < n_samples; sample++) {
        const double *source0 = inputs[0] + sample * 48;
        layer1_result_t in0[48];
        nnet::convert_data<double, layer1_result_t, 48>(source0, in0);
        layer9_result_t out0[48];
        for (unsigned t = 0; t < 8; t++)
            myproject_trace_buffers[t] = nnet::trace_row(traces ? traces[t] : nullptr, single, sample * myproject_trace_sizes[t]);
        myproject(in0, out0);
        double *target0 = outputs[0] + sample * 48;
        nnet::convert_data_back<layer9_result_t, double, 48>(out0, target0);
    }
    for (unsigned t = 0; t < 8; t++)
        myproject_trace_buffers[t] = nnet::trace_row(nullptr, false, 0);
}

// The buffer sizes this library was built for; Python checks them before the first call.
HLS4ML_EXPORT const char *myproject_ports() {
    return "inputs 48; outputs 48; traces 48,48,48,48,48,48,48,48";
}

HLS4ML_EXPORT void myproject_predict(const double *const *inputs, double *const *outputs, long n_samples) {
    myproject_run(inputs, outputs, nullptr, false, n_samples);
}

// Traces into arrays of floats when `single` is nonzero, else of doubles (the caller's dtype).
HLS4ML_EXPORT void myproject_trace(const double *const *inputs, double *const *outputs, void *const *traces,
                              int single, long n_samples) {
    myproject_run(inputs, outputs, traces, single != 0, n_samples);
}
