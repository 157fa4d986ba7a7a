// The SYCL kernel of myproject: host pipes in, the model core, host pipes out (written by hls4ml;
// do not edit). Built by the CMake targets with __SYNTHESIS__ defined: the core has no C-simulation hooks.
#include "myproject_kernel.h"

#include "myproject.cpp"

void myproject_kernel::operator()() const {
    [[intel::fpga_register]] const layer1_out_element_t layer1_out = layer1_out_pipe::read();
    [[intel::fpga_register]] layer3_out_element_t layer3_out;
    myproject(layer1_out.data, layer3_out.data);
    layer3_out_pipe::write(layer3_out);
}
