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
class layer3_out_pipe_id;
using layer3_out_pipe = sycl::ext::intel::pipe<layer3_out_pipe_id, nnet::array<layer3_result_t, 3>, 36>;
class layer4_out_pipe_id;
using layer4_out_pipe = sycl::ext::intel::pipe<layer4_out_pipe_id, nnet::array<layer4_result_t, 3>, 36>;
class layer5_out_pipe_id;
using layer5_out_pipe = sycl::ext::intel::pipe<layer5_out_pipe_id, nnet::array<layer5_result_t, 3>, 9>;
class layer6_out_pipe_id;
using layer6_out_pipe = sycl::ext::intel::pipe<layer6_out_pipe_id, nnet::array<layer6_result_t, 4>, 4>;
class layer7_out_pipe_id;
using layer7_out_pipe = sycl::ext::intel::pipe<layer7_out_pipe_id, nnet::array<layer7_result_t, 16>, 1>;
class layer2_out_pipe_id;
using layer2_out_pipe = sycl::ext::intel::pipe<layer2_out_pipe_id, nnet::array<layer2_result_t, 2>, 64>;

// conv1_pad (ZeroPadding2D)
static void config2_task() {
    nnet::stream<nnet::array<layer1_result_t, 2>> layer1_out("layer1_out");
    nnet::stream<nnet::array<layer2_result_t, 2>> layer2_out("layer2_out");
    for (unsigned e = 0; e < 36; e++) {
        layer1_out.write(layer1_out_pipe::read());
    }
    nnet::zeropad<nnet::array<layer1_result_t, 2>, nnet::array<layer2_result_t, 2>, config2>(layer1_out, layer2_out);
    for (unsigned e = 0; e < 64; e++) {
        layer2_out_pipe::write(layer2_out.read());
    }
}

// conv1 (Conv2D)
static void config3_task() {
    nnet::stream<nnet::array<layer2_result_t, 2>> layer2_out("layer2_out");
    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out("layer3_out");
    for (unsigned e = 0; e < 64; e++) {
        layer2_out.write(layer2_out_pipe::read());
    }
    nnet::conv<nnet::array<layer2_result_t, 2>, nnet::array<layer3_result_t, 3>, config3>(layer2_out, layer3_out, w3, b3);
    for (unsigned e = 0; e < 36; e++) {
        layer3_out_pipe::write(layer3_out.read());
    }
}

// conv1_relu (Activation)
static void config4_task() {
    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out("layer3_out");
    nnet::stream<nnet::array<layer4_result_t, 3>> layer4_out("layer4_out");
    for (unsigned e = 0; e < 36; e++) {
        layer3_out.write(layer3_out_pipe::read());
    }
    nnet::relu<nnet::array<layer3_result_t, 3>, nnet::array<layer4_result_t, 3>, config4>(layer3_out, layer4_out);
    for (unsigned e = 0; e < 36; e++) {
        layer4_out_pipe::write(layer4_out.read());
    }
}

// pool (Pooling2D)
static void config5_task() {
    nnet::stream<nnet::array<layer4_result_t, 3>> layer4_out("layer4_out");
    nnet::stream<nnet::array<layer5_result_t, 3>> layer5_out("layer5_out");
    for (unsigned e = 0; e < 36; e++) {
        layer4_out.write(layer4_out_pipe::read());
    }
    nnet::pooling<nnet::array<layer4_result_t, 3>, nnet::array<layer5_result_t, 3>, config5>(layer4_out, layer5_out);
    for (unsigned e = 0; e < 9; e++) {
        layer5_out_pipe::write(layer5_out.read());
    }
}

// conv2 (Conv2D)
static void config6_task() {
    nnet::stream<nnet::array<layer5_result_t, 3>> layer5_out("layer5_out");
    nnet::stream<nnet::array<layer6_result_t, 4>> layer6_out("layer6_out");
    for (unsigned e = 0; e < 9; e++) {
        layer5_out.write(layer5_out_pipe::read());
    }
    nnet::conv<nnet::array<layer5_result_t, 3>, nnet::array<layer6_result_t, 4>, config6>(layer5_out, layer6_out, w6, b6);
    for (unsigned e = 0; e < 4; e++) {
        layer6_out_pipe::write(layer6_out.read());
    }
}

// flatten (Reshape)
static void config7_task() {
    nnet::stream<nnet::array<layer6_result_t, 4>> layer6_out("layer6_out");
    nnet::stream<nnet::array<layer7_result_t, 16>> layer7_out("layer7_out");
    for (unsigned e = 0; e < 4; e++) {
        layer6_out.write(layer6_out_pipe::read());
    }
    nnet::repack<nnet::array<layer6_result_t, 4>, nnet::array<layer7_result_t, 16>, config7>(layer6_out, layer7_out);
    for (unsigned e = 0; e < 1; e++) {
        layer7_out_pipe::write(layer7_out.read());
    }
}

// fc (Dense)
static void config8_task() {
    nnet::stream<nnet::array<layer7_result_t, 16>> layer7_out("layer7_out");
    nnet::stream<nnet::array<layer8_result_t, 3>> layer8_out("layer8_out");
    for (unsigned e = 0; e < 1; e++) {
        layer7_out.write(layer7_out_pipe::read());
    }
    nnet::dense<nnet::array<layer7_result_t, 16>, nnet::array<layer8_result_t, 3>, config8>(layer7_out, layer8_out, w8, b8);
    for (unsigned e = 0; e < 1; e++) {
        layer8_out_pipe::write(layer8_out.read());
    }
}

void myproject_kernel::operator()() const {
    sycl::ext::intel::experimental::task_sequence<config2_task> config2_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config3_task> config3_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config4_task> config4_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config5_task> config5_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config6_task> config6_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config7_task> config7_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config8_task> config8_task_sequence;
    config2_task_sequence.async();
    config3_task_sequence.async();
    config4_task_sequence.async();
    config5_task_sequence.async();
    config6_task_sequence.async();
    config7_task_sequence.async();
    config8_task_sequence.async();
    config2_task_sequence.get();
    config3_task_sequence.get();
    config4_task_sequence.get();
    config5_task_sequence.get();
    config6_task_sequence.get();
    config7_task_sequence.get();
    config8_task_sequence.get();
}
