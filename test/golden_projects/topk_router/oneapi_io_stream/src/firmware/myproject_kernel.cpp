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
class layer2_out_pipe_id;
using layer2_out_pipe = sycl::ext::intel::pipe<layer2_out_pipe_id, nnet::array<layer2_result_t, 8>, 1>;

// router_gate (Dense)
static void config2_task() {
    nnet::stream<nnet::array<layer1_result_t, 4>> layer1_out("layer1_out");
    nnet::stream<nnet::array<layer2_result_t, 8>> layer2_out("layer2_out");
    for (unsigned e = 0; e < 1; e++) {
        layer1_out.write(layer1_out_pipe::read());
    }
    nnet::dense<nnet::array<layer1_result_t, 4>, nnet::array<layer2_result_t, 8>, config2>(layer1_out, layer2_out, w2, b2);
    for (unsigned e = 0; e < 1; e++) {
        layer2_out_pipe::write(layer2_out.read());
    }
}

// router (Router)
static void config3_task() {
    nnet::stream<nnet::array<layer2_result_t, 8>> layer2_out("layer2_out");
    nnet::stream<nnet::array<layer3_result_t, 8>> layer3_out("layer3_out");
    for (unsigned e = 0; e < 1; e++) {
        layer2_out.write(layer2_out_pipe::read());
    }
    nnet::router<nnet::array<layer2_result_t, 8>, nnet::array<layer3_result_t, 8>, config3>(layer2_out, layer3_out, exp_table3, inv_table3);
    for (unsigned e = 0; e < 1; e++) {
        layer3_out_pipe::write(layer3_out.read());
    }
}

void myproject_kernel::operator()() const {
    sycl::ext::intel::experimental::task_sequence<config2_task> config2_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config3_task> config3_task_sequence;
    config2_task_sequence.async();
    config3_task_sequence.async();
    config2_task_sequence.get();
    config3_task_sequence.get();
}
