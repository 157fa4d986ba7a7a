// Testbench of myproject: reads tb_data/tb_input_features.dat (one sample per line), runs the
// kernel, writes tb_data/results.log and, if tb_data/tb_output_predictions.dat exists,
// prints the expected outputs beside the computed ones (written by hls4ml).
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>


#include "firmware/nnet_utils/nnet_helpers.h"

#include "exception_handler.hpp"
#include "firmware/myproject_kernel.h"

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
    // The device the CMake target chose: emulator, simulator or hardware.
#if defined(FPGA_SIMULATOR)
    auto selector = sycl::ext::intel::fpga_simulator_selector_v;
#elif defined(FPGA_HARDWARE)
    auto selector = sycl::ext::intel::fpga_selector_v;
#else
    auto selector = sycl::ext::intel::fpga_emulator_selector_v;
#endif
    static sycl::queue queue(selector, hls4ml_testbench::exception_handler, sycl::property::queue::enable_profiling{});
    sycl::event done = queue.single_task(myproject_kernel{});
    double source0[48];
    for (unsigned i = 0; i < 48; i++, offset++)
        source0[i] = offset < values.size() ? values[offset] : 0.0;
    for (unsigned e = 0; e < layer1_out_elements; e++) {
        layer1_out_element_t element;
        nnet::convert_data<double, layer1_result_t, layer1_out_element_t::size>(
            source0 + e * layer1_out_element_t::size, element.data);
        layer1_out_pipe::write(queue, element);
    }
    double result0[48];
    for (unsigned e = 0; e < layer9_out_elements; e++) {
        const layer9_out_element_t element = layer9_out_pipe::read(queue);
        nnet::convert_data_back<layer9_result_t, double, layer9_out_element_t::size>(
            element.data, result0 + e * layer9_out_element_t::size);
    }
    done.wait();
    for (unsigned i = 0; i < 48; i++)
        log << result0[i] << ' ';
    log << '\n';
    if (!expected.empty()) {
        std::cout << "expected:";
        for (double value : expected)
            std::cout << ' ' << value;
        std::cout << '\n';
    }
}

int main() {
    std::ifstream inputs("tb_data/tb_input_features.dat");
    std::ifstream predictions("tb_data/tb_output_predictions.dat");
    std::ofstream log("tb_data/results.log");
    std::vector<double> values, expected;
    if (!inputs.is_open()) {
        std::cout << "no tb_data/tb_input_features.dat: running one sample of zeros\n";
        run(values, log, expected);
        return 0;
    }
    int samples = 0;
    while (read_line(inputs, values)) {
        if (!predictions.is_open() || !read_line(predictions, expected))
            expected.clear();
        run(values, log, expected);
        samples++;
    }
    std::cout << samples << " samples written to tb_data/results.log\n";
    return 0;
}
