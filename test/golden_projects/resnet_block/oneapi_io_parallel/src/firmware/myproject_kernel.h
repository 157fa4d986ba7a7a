// The SYCL kernel of myproject: its host pipes and the kernel functor (written by hls4ml; do not
// edit). One invocation reads one sample from the input pipes, runs the model core (myproject.cpp)
// and writes the output pipes. Built by the CMake targets only: the C-simulation bridge calls the core.
#ifndef MYPROJECT_KERNEL_H_
#define MYPROJECT_KERNEL_H_

#include <sycl/sycl.hpp>
#include <sycl/ext/intel/fpga_extensions.hpp>

#include "defines.h"
#include "nnet_utils/nnet_types.h"

using myproject_pipe_properties = decltype(sycl::ext::oneapi::experimental::properties(sycl::ext::intel::experimental::ready_latency<0>));

// x: 1 element(s) of 48 values per sample
typedef nnet::array<layer1_result_t, 48> layer1_out_element_t;
static const unsigned layer1_out_elements = 1;
class layer1_out_pipe_id;
using layer1_out_pipe = sycl::ext::intel::experimental::pipe<layer1_out_pipe_id, layer1_out_element_t, 0, myproject_pipe_properties>;

// relu2: 1 element(s) of 48 values per sample
typedef nnet::array<layer9_result_t, 48> layer9_out_element_t;
static const unsigned layer9_out_elements = 1;
class layer9_out_pipe_id;
using layer9_out_pipe = sycl::ext::intel::experimental::pipe<layer9_out_pipe_id, layer9_out_element_t, 0, myproject_pipe_properties>;

struct myproject_kernel {
    SYCL_EXTERNAL void operator()() const;

    auto get(sycl::ext::oneapi::experimental::properties_tag) {
        return sycl::ext::oneapi::experimental::properties{sycl::ext::intel::experimental::streaming_interface<>, sycl::ext::intel::experimental::pipelined<1>};
    }
};

#endif
