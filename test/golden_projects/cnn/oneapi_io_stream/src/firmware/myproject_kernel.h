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

// x: 36 element(s) of 2 values per sample
typedef nnet::array<layer1_result_t, 2> layer1_out_element_t;
static const unsigned layer1_out_elements = 36;
class layer1_out_pipe_id;
using layer1_out_pipe = sycl::ext::intel::experimental::pipe<layer1_out_pipe_id, layer1_out_element_t, 0, myproject_pipe_properties>;

// fc: 1 element(s) of 3 values per sample
typedef nnet::array<layer8_result_t, 3> layer8_out_element_t;
static const unsigned layer8_out_elements = 1;
class layer8_out_pipe_id;
using layer8_out_pipe = sycl::ext::intel::experimental::pipe<layer8_out_pipe_id, layer8_out_element_t, 0, myproject_pipe_properties>;

// The device build's nnet::stream is a bounded FIFO (nnet_utils/nnet_fifo.h) that holds one whole
// tensor: per element type, the elements of the largest tensor of that type.
namespace nnet {
template <> struct stream_capacity<nnet::array<ac_fixed<16,6,true>, 16>> {
    static const unsigned value = 1;
};
template <> struct stream_capacity<nnet::array<ac_fixed<16,6,true>, 2>> {
    static const unsigned value = 64;
};
template <> struct stream_capacity<nnet::array<ac_fixed<16,6,true>, 3>> {
    static const unsigned value = 36;
};
template <> struct stream_capacity<nnet::array<ac_fixed<16,6,true>, 4>> {
    static const unsigned value = 4;
};
template <> struct stream_capacity<nnet::array<ac_fixed<35,10,true>, 3>> {
    static const unsigned value = 36;
};
} // namespace nnet

struct myproject_kernel {
    SYCL_EXTERNAL void operator()() const;

    auto get(sycl::ext::oneapi::experimental::properties_tag) {
        return sycl::ext::oneapi::experimental::properties{sycl::ext::intel::experimental::streaming_interface<>};
    }
};

#endif
