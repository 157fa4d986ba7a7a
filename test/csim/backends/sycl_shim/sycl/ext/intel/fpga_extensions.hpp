// A FAKE of the oneAPI FPGA extensions, for tests only (see sycl/sycl.hpp here): device selectors,
// kernel and pipe properties as empty values, and host and device pipes as unbounded FIFOs.
#ifndef HLS4ML_TEST_FAKE_FPGA_EXTENSIONS_HPP_
#define HLS4ML_TEST_FAKE_FPGA_EXTENSIONS_HPP_

#include <cstdio>
#include <cstdlib>
#include <deque>

#include <sycl/sycl.hpp>

namespace sycl::ext::intel {

struct device_selector {};
inline constexpr device_selector fpga_emulator_selector_v{};
inline constexpr device_selector fpga_simulator_selector_v{};
inline constexpr device_selector fpga_selector_v{};

} // namespace sycl::ext::intel

namespace sycl::ext::oneapi::experimental {

struct properties_tag {};

template <class... Values> struct properties {
    constexpr properties(Values...) {}
};

} // namespace sycl::ext::oneapi::experimental

namespace sycl::ext::intel::experimental {

template <int Latency> struct ready_latency_value {};
template <int Latency> inline constexpr ready_latency_value<Latency> ready_latency{};
template <int Stall = 0> struct streaming_interface_value {};
template <int Stall = 0> inline constexpr streaming_interface_value<Stall> streaming_interface{};
template <int Interval = -1> struct pipelined_value {};
template <int Interval = -1> inline constexpr pipelined_value<Interval> pipelined{};

// A pipe is a type; its FIFO is one static per type. Reading an empty pipe from the host runs the
// queue's pending kernels first; reading it from a kernel (or still empty) is a deadlock.
template <class Id, class T, int MinCapacity = 0, class Properties = void> struct pipe {
    static std::deque<T> &fifo() {
        static std::deque<T> values;
        return values;
    }
    static void write(const T &value) { fifo().push_back(value); }
    static void write(sycl::queue &, const T &value) { write(value); }
    static T read() {
        if (fifo().empty()) {
            std::fprintf(stderr, "fake SYCL: read from an empty pipe (a deadlock on the device)\n");
            std::abort();
        }
        T value = fifo().front();
        fifo().pop_front();
        return value;
    }
    static T read(sycl::queue &queue) {
        if (fifo().empty())
            queue.run_pending();
        return read();
    }
};

} // namespace sycl::ext::intel::experimental

namespace sycl::ext::intel {

// A pipe between kernels or tasks of the device: the same FIFO per type as a host pipe.
template <class Id, class T, int MinCapacity = 0> using pipe = experimental::pipe<Id, T, MinCapacity>;

} // namespace sycl::ext::intel

#endif
