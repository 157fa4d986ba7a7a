// Testbench of myproject: reads tb_data/tb_input_features.dat (one sample per line), runs the
// top function, writes tb_data/csim_results.log and, if tb_data/tb_output_predictions.dat exists,
// prints the expected outputs beside the computed ones (written by hls4ml).
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "firmware/myproject.h"
#include "firmware/nnet_utils/nnet_helpers.h"

static bool read_line(std::ifstream &file, std::vector<double> &values) {
    std::string line;
    if (!std::getline(file, line))
        return false;
    std::istringstream stream(line);
    values.clear();
    for (double value; stream >> value;)
        values.push_back(value);
    return true;
}

static void run(const std::vector<double> &values, std::ostream &log, const std::vector<double> &expected) {
    size_t offset = 0;
    double source0[72];
    for (unsigned i = 0; i < 72; i++, offset++)
        source0[i] = offset < values.size() ? values[offset] : 0.0;
    ac_channel<nnet::array<layer1_result_t, 2>> in0;
    nnet::write_stream<nnet::array<layer1_result_t, 2>, 36>(source0, in0);
    ac_channel<nnet::array<layer8_result_t, 3>> out0;
    CCS_DESIGN(myproject)(in0, out0);
    double result0[3];
    nnet::read_stream<nnet::array<layer8_result_t, 3>, 1>(out0, result0);
    for (unsigned i = 0; i < 3; i++)
        log << result0[i] << ' ';
    log << '\n';
    if (!expected.empty()) {
        std::cout << "expected:";
        for (double value : expected)
            std::cout << ' ' << value;
        std::cout << '\n';
    }
}

#include <unistd.h> // chdir

CCS_MAIN(int argc, char *argv[]) {
    if (argc > 1 && chdir(argv[1]) != 0) {
        std::cerr << "cannot enter the project folder " << argv[1] << '\n';
        CCS_RETURN(1);
    }
    std::ifstream inputs("tb_data/tb_input_features.dat");
    std::ifstream predictions("tb_data/tb_output_predictions.dat");
    std::ofstream log("tb_data/csim_results.log");
    std::vector<double> values, expected;
    if (!inputs.is_open()) {
        std::cout << "no tb_data/tb_input_features.dat: running one sample of zeros\n";
        run(values, log, expected);
        CCS_RETURN(0);
    }
    int samples = 0;
    while (read_line(inputs, values)) {
        if (!predictions.is_open() || !read_line(predictions, expected))
            expected.clear();
        run(values, log, expected);
        samples++;
    }
    std::cout << samples << " samples written to tb_data/csim_results.log\n";
    CCS_RETURN(0);
}
