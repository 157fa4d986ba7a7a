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
using layer2_out_pipe = sycl::ext::intel::pipe<layer2_out_pipe_id, nnet::array<layer2_result_t, 3>, 16>;
class layer5_out_pipe_id;
using layer5_out_pipe = sycl::ext::intel::pipe<layer5_out_pipe_id, nnet::array<layer5_result_t, 3>, 16>;
class layer6_out_pipe_id;
using layer6_out_pipe = sycl::ext::intel::pipe<layer6_out_pipe_id, nnet::array<layer6_result_t, 3>, 16>;
class layer7_out_pipe_id;
using layer7_out_pipe = sycl::ext::intel::pipe<layer7_out_pipe_id, nnet::array<layer7_result_t, 3>, 16>;
class layer9_out_pipe_id;
using layer9_out_pipe = sycl::ext::intel::pipe<layer9_out_pipe_id, nnet::array<layer9_result_t, 3>, 16>;
class layer10_out_pipe_id;
using layer10_out_pipe = sycl::ext::intel::pipe<layer10_out_pipe_id, nnet::array<layer10_result_t, 3>, 16>;
class layer11_out_pipe_id;
using layer11_out_pipe = sycl::ext::intel::pipe<layer11_out_pipe_id, nnet::array<layer11_result_t, 3>, 16>;
class layer4_out_pipe_id;
using layer4_out_pipe = sycl::ext::intel::pipe<layer4_out_pipe_id, nnet::array<layer4_result_t, 3>, 36>;
class layer8_out_pipe_id;
using layer8_out_pipe = sycl::ext::intel::pipe<layer8_out_pipe_id, nnet::array<layer8_result_t, 3>, 36>;
class layer3_out_pipe_id;
using layer3_out_pipe = sycl::ext::intel::pipe<layer3_out_pipe_id, nnet::array<layer3_result_t, 3>, 16>;
class layer3_out2_pipe_id;
using layer3_out2_pipe = sycl::ext::intel::pipe<layer3_out2_pipe_id, nnet::array<layer3_result_t, 3>, 16>;

// conv1_transpose (Transpose)
static void config2_task() {
    nnet::stream<nnet::array<layer1_result_t, 4>> layer1_out("layer1_out");
    nnet::stream<nnet::array<layer2_result_t, 3>> layer2_out("layer2_out");
    for (unsigned e = 0; e < 12; e++) {
        layer1_out.write(layer1_out_pipe::read());
    }
    nnet::transpose<nnet::array<layer1_result_t, 4>, nnet::array<layer2_result_t, 3>, config2>(layer1_out, layer2_out);
    for (unsigned e = 0; e < 16; e++) {
        layer2_out_pipe::write(layer2_out.read());
    }
}

// conv1_transpose_clone (Clone)
static void config3_task() {
    nnet::stream<nnet::array<layer2_result_t, 3>> layer2_out("layer2_out");
    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out("layer3_out");
    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out2("layer3_out2");
    for (unsigned e = 0; e < 16; e++) {
        layer2_out.write(layer2_out_pipe::read());
    }
    nnet::clone<nnet::array<layer2_result_t, 3>, nnet::array<layer3_result_t, 3>, config3>(layer2_out, layer3_out, layer3_out2);
    for (unsigned e = 0; e < 16; e++) {
        layer3_out_pipe::write(layer3_out.read());
    }
    for (unsigned e = 0; e < 16; e++) {
        layer3_out2_pipe::write(layer3_out2.read());
    }
}

// conv1_pad (ZeroPadding2D)
static void config4_task() {
    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out("layer3_out");
    nnet::stream<nnet::array<layer4_result_t, 3>> layer4_out("layer4_out");
    for (unsigned e = 0; e < 16; e++) {
        layer3_out.write(layer3_out_pipe::read());
    }
    nnet::zeropad<nnet::array<layer3_result_t, 3>, nnet::array<layer4_result_t, 3>, config4>(layer3_out, layer4_out);
    for (unsigned e = 0; e < 36; e++) {
        layer4_out_pipe::write(layer4_out.read());
    }
}

// conv1 (Conv2D)
static void config5_task() {
    nnet::stream<nnet::array<layer4_result_t, 3>> layer4_out("layer4_out");
    nnet::stream<nnet::array<layer5_result_t, 3>> layer5_out("layer5_out");
    for (unsigned e = 0; e < 36; e++) {
        layer4_out.write(layer4_out_pipe::read());
    }
    nnet::conv<nnet::array<layer4_result_t, 3>, nnet::array<layer5_result_t, 3>, config5>(layer4_out, layer5_out, w5, b5);
    for (unsigned e = 0; e < 16; e++) {
        layer5_out_pipe::write(layer5_out.read());
    }
}

// bn1 (BatchNormalization)
static void config6_task() {
    nnet::stream<nnet::array<layer5_result_t, 3>> layer5_out("layer5_out");
    nnet::stream<nnet::array<layer6_result_t, 3>> layer6_out("layer6_out");
    for (unsigned e = 0; e < 16; e++) {
        layer5_out.write(layer5_out_pipe::read());
    }
    nnet::normalize<nnet::array<layer5_result_t, 3>, nnet::array<layer6_result_t, 3>, config6>(layer5_out, layer6_out, s6, b6);
    for (unsigned e = 0; e < 16; e++) {
        layer6_out_pipe::write(layer6_out.read());
    }
}

// relu1 (Activation)
static void config7_task() {
    nnet::stream<nnet::array<layer6_result_t, 3>> layer6_out("layer6_out");
    nnet::stream<nnet::array<layer7_result_t, 3>> layer7_out("layer7_out");
    for (unsigned e = 0; e < 16; e++) {
        layer6_out.write(layer6_out_pipe::read());
    }
    nnet::relu<nnet::array<layer6_result_t, 3>, nnet::array<layer7_result_t, 3>, config7>(layer6_out, layer7_out);
    for (unsigned e = 0; e < 16; e++) {
        layer7_out_pipe::write(layer7_out.read());
    }
}

// conv2_pad (ZeroPadding2D)
static void config8_task() {
    nnet::stream<nnet::array<layer7_result_t, 3>> layer7_out("layer7_out");
    nnet::stream<nnet::array<layer8_result_t, 3>> layer8_out("layer8_out");
    for (unsigned e = 0; e < 16; e++) {
        layer7_out.write(layer7_out_pipe::read());
    }
    nnet::zeropad<nnet::array<layer7_result_t, 3>, nnet::array<layer8_result_t, 3>, config8>(layer7_out, layer8_out);
    for (unsigned e = 0; e < 36; e++) {
        layer8_out_pipe::write(layer8_out.read());
    }
}

// conv2 (Conv2D)
static void config9_task() {
    nnet::stream<nnet::array<layer8_result_t, 3>> layer8_out("layer8_out");
    nnet::stream<nnet::array<layer9_result_t, 3>> layer9_out("layer9_out");
    for (unsigned e = 0; e < 36; e++) {
        layer8_out.write(layer8_out_pipe::read());
    }
    nnet::conv<nnet::array<layer8_result_t, 3>, nnet::array<layer9_result_t, 3>, config9>(layer8_out, layer9_out, w9, b9);
    for (unsigned e = 0; e < 16; e++) {
        layer9_out_pipe::write(layer9_out.read());
    }
}

// bn2 (BatchNormalization)
static void config10_task() {
    nnet::stream<nnet::array<layer9_result_t, 3>> layer9_out("layer9_out");
    nnet::stream<nnet::array<layer10_result_t, 3>> layer10_out("layer10_out");
    for (unsigned e = 0; e < 16; e++) {
        layer9_out.write(layer9_out_pipe::read());
    }
    nnet::normalize<nnet::array<layer9_result_t, 3>, nnet::array<layer10_result_t, 3>, config10>(layer9_out, layer10_out, s10, b10);
    for (unsigned e = 0; e < 16; e++) {
        layer10_out_pipe::write(layer10_out.read());
    }
}

// add (Merge)
static void config11_task() {
    nnet::stream<nnet::array<layer10_result_t, 3>> layer10_out("layer10_out");
    nnet::stream<nnet::array<layer3_result_t, 3>> layer3_out2("layer3_out2");
    nnet::stream<nnet::array<layer11_result_t, 3>> layer11_out("layer11_out");
    for (unsigned e = 0; e < 16; e++) {
        layer10_out.write(layer10_out_pipe::read());
    }
    for (unsigned e = 0; e < 16; e++) {
        layer3_out2.write(layer3_out2_pipe::read());
    }
    nnet::add<nnet::array<layer10_result_t, 3>, nnet::array<layer3_result_t, 3>, nnet::array<layer11_result_t, 3>, config11>(layer10_out, layer3_out2, layer11_out);
    for (unsigned e = 0; e < 16; e++) {
        layer11_out_pipe::write(layer11_out.read());
    }
}

// relu2 (Activation)
static void config12_task() {
    nnet::stream<nnet::array<layer11_result_t, 3>> layer11_out("layer11_out");
    nnet::stream<nnet::array<layer12_result_t, 3>> layer12_out("layer12_out");
    for (unsigned e = 0; e < 16; e++) {
        layer11_out.write(layer11_out_pipe::read());
    }
    nnet::relu<nnet::array<layer11_result_t, 3>, nnet::array<layer12_result_t, 3>, config12>(layer11_out, layer12_out);
    for (unsigned e = 0; e < 16; e++) {
        layer12_out_pipe::write(layer12_out.read());
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
    sycl::ext::intel::experimental::task_sequence<config9_task> config9_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config10_task> config10_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config11_task> config11_task_sequence;
    sycl::ext::intel::experimental::task_sequence<config12_task> config12_task_sequence;
    config2_task_sequence.async();
    config3_task_sequence.async();
    config4_task_sequence.async();
    config5_task_sequence.async();
    config6_task_sequence.async();
    config7_task_sequence.async();
    config8_task_sequence.async();
    config9_task_sequence.async();
    config10_task_sequence.async();
    config11_task_sequence.async();
    config12_task_sequence.async();
    config2_task_sequence.get();
    config3_task_sequence.get();
    config4_task_sequence.get();
    config5_task_sequence.get();
    config6_task_sequence.get();
    config7_task_sequence.get();
    config8_task_sequence.get();
    config9_task_sequence.get();
    config10_task_sequence.get();
    config11_task_sequence.get();
    config12_task_sequence.get();
}
