// A FAKE SYCL, for tests only: just enough of the SYCL 2020 host API for g++ to compile and run the
// generated oneAPI kernel wrapper and host testbench. It proves that they are well-formed C++ and that
// their pipe traffic is ordered correctly; it says nothing about icpx or the hardware.
//
// A kernel does not run when it is submitted: it waits in its queue until the host reads a pipe that
// is empty or waits on its event, so a testbench that launches, writes the inputs, then reads the
// outputs runs as on a device. Pipes are unbounded FIFOs.
#ifndef HLS4ML_TEST_FAKE_SYCL_HPP_
#define HLS4ML_TEST_FAKE_SYCL_HPP_

#include <deque>
#include <exception>
#include <functional>
#include <stdexcept>
#include <vector>

#define SYCL_EXTERNAL

namespace sycl {

class exception : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

using exception_list = std::vector<std::exception_ptr>;
using async_handler = std::function<void(exception_list)>;

namespace property::queue {
struct enable_profiling {};
} // namespace property::queue

class queue;

class event {
  public:
    explicit event(queue *owner) : owner_(owner) {}
    void wait();

  private:
    queue *owner_;
};

class queue {
  public:
    template <class Selector, class Property>
    queue(const Selector &, async_handler handler, const Property &) : handler_(std::move(handler)) {}

    template <class Kernel> event single_task(Kernel kernel) {
        pending_.push_back([kernel]() mutable { kernel(); });
        return event(this);
    }

    // Runs the kernels submitted so far, in order.
    void run_pending() {
        while (!pending_.empty()) {
            std::function<void()> kernel = std::move(pending_.front());
            pending_.pop_front();
            kernel();
        }
    }

  private:
    async_handler handler_;
    std::deque<std::function<void()>> pending_;
};

inline void event::wait() { owner_->run_pending(); }

} // namespace sycl

#endif
