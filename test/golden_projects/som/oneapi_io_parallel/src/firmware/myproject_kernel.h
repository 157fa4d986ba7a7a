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

// input: 1 element(s) of 5 values per sample
typedef nnet::array<layer1_result_t, 5> layer1_out_element_t;
static const unsigned layer1_out_elements = 1;
class layer1_out_pipe_id;
using layer1_out_pipe = sycl::ext::intel::experimental::pipe<layer1_out_pipe_id, layer1_out_element_t, 0, myproject_pipe_properties>;

// som: 1 element(s) of 1 values per sample
typedef nnet::array<layer2_result_t, 1> layer2_out_element_t;
static const unsigned layer2_out_elements = 1;
class layer2_out_pipe_id;
using layer2_out_pipe = sycl::ext::intel::experimental::pipe<layer2_out_pipe_id, layer2_out_element_t, 0, myproject_pipe_properties>;

struct myproject_kernel {
    SYCL_EXTERNAL void operator()() const;

    auto get(sycl::ext::oneapi::experimental::properties_tag) {
        return sycl::ext::oneapi::experimental::properties{sycl::ext::intel::experimental::streaming_interface<>, sycl::ext::intel::experimental::pipelined<1>};
    }
};

#endif
