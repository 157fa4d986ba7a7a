// C-simulation bridge of myproject: the whole batch in one call from Python (written by hls4ml).
// Inputs and outputs are (n_samples, size) arrays of doubles, one pointer per port; see hls4ml/csim.
// Kernel state and trace hooks are per thread here (NNET_PERSISTENT), so threads may call in at once.
#define HLS4ML_CSIM_THREADS
#include "firmware/myproject.cpp"

#define HLS4ML_EXPORT extern "C" __attribute__((visibility("default")))
// The values each trace buffer takes per sample (a table and one loop: one statement per traced layer was
// most of this file's compile time).
static const long myproject_trace_sizes[1] = {1};

static void myproject_run(const double *const *inputs, double *const *outputs, void *const *traces,
                        bool single, long n_samples) {
    for (long sample = 0; sample < n_samples; sample++) {
        const double *source0 = inputs[0] + sample * 5;
        hls::stream<nnet::array<layer1_result_t, 5>> in0("in0");
        nnet::write_stream<nnet::array<layer1_result_t, 5>, 1>(source0, in0);
        hls::stream<nnet::array<layer2_result_t, 1>> out0("out0");
        for (unsigned t = 0; t < 1; t++)
            myproject_trace_buffers[t] = nnet::trace_row(traces ? traces[t] : nullptr, single, sample * myproject_trace_sizes[t]);
        myproject(in0, out0);
        double *target0 = outputs[0] + sample * 1;
        nnet::read_stream<nnet::array<layer2_result_t, 1>, 1>(out0, target0);
    }
    for (unsigned t = 0; t < 1; t++)
        myproject_trace_buffers[t] = nnet::trace_row(nullptr, false, 0);
}

// The buffer sizes this library was built for; Python checks them before the first call.
HLS4ML_EXPORT const char *myproject_ports() {
    return "inputs 5; outputs 1; traces 1";
}

HLS4ML_EXPORT void myproject_predict(const double *const *inputs, double *const *outputs, long n_samples) {
    myproject_run(inputs, outputs, nullptr, false, n_samples);
}

// Traces into arrays of floats when `single` is nonzero, else of doubles (the caller's dtype).
HLS4ML_EXPORT void myproject_trace(const double *const *inputs, double *const *outputs, void *const *traces,
                              int single, long n_samples) {
    myproject_run(inputs, outputs, traces, single != 0, n_samples);
}
#include <vector>
#include "firmware/myproject_learn.cpp"


// som: Kohonen steps, sample by sample, each with its rate and its row and column tables.
HLS4ML_EXPORT void myproject_learn_som_run(const double *samples, const double *rates, const double *row_tables,
                          const double *col_tables, double *codebook_values, long *bmus, long n_samples) {
    std::vector<learn_config2::codebook_t> codebook(60);
    nnet::convert_data<double, learn_config2::codebook_t, 60>(codebook_values, codebook.data());
    for (long sample = 0; sample < n_samples; sample++) {
        layer1_result_t data[5];
        nnet::convert_data<double, layer1_result_t, 5>(samples + sample * 5, data);
        learn_config2::rate_t rate[1];
        nnet::convert_data<double, learn_config2::rate_t, 1>(rates + sample, rate);
        learn_config2::neighbourhood_t row_table[3], col_table[4];
        nnet::convert_data<double, learn_config2::neighbourhood_t, 3>(row_tables + sample * 3, row_table);
        nnet::convert_data<double, learn_config2::neighbourhood_t, 4>(col_tables + sample * 4, col_table);
        unsigned bmu = 0;
        myproject_learn_som(data, rate[0], row_table, col_table, codebook.data(), bmu);
        bmus[sample] = bmu;
    }
    nnet::convert_data_back<learn_config2::codebook_t, double, 60>(codebook.data(), codebook_values);
}

