// The SYCL kernel of myproject: host pipes in, the model core, host pipes out (written by hls4ml;
// do not edit). Built by the CMake targets with __SYNTHESIS__ defined: the core has no C-simulation hooks.
#include "myproject_kernel.h"

#include <sycl/ext/intel/experimental/task_sequence.hpp>

#include "parameters.h"

// io_stream: every layer is a task of its own, and the tasks run concurrently. A tensor goes from the
// task writing it to the task reading it through a pipe: the host pipes for the model's inputs and
// outputs (kernel.h), a pipe of the whole tensor's depth for the others, so that no task waits for a
// reader (a merge reads its inputs one after the other). Inside a task the layer's kernel works on
// its stream objects, bounded FIFOs here: the task fills the input FIFOs from their pipes, runs the
// kernel, and empties the output FIFOs into their pipes.

// som (SOM)
static void config2_task() {
    nnet::stream<nnet::array<layer1_result_t, 5>> layer1_out("layer1_out");
    nnet::stream<nnet::array<layer2_result_t, 1>> layer2_out("layer2_out");
    for (unsigned e = 0; e < 1; e++) {
        layer1_out.write(layer1_out_pipe::read());
    }
    nnet::som<nnet::array<layer1_result_t, 5>, nnet::array<layer2_result_t, 1>, config2>(layer1_out, layer2_out, w2, l2);
    for (unsigned e = 0; e < 1; e++) {
        layer2_out_pipe::write(layer2_out.read());
    }
}

void myproject_kernel::operator()() const {
    sycl::ext::intel::experimental::task_sequence<config2_task> config2_task_sequence;
    config2_task_sequence.async();
    config2_task_sequence.get();
}
