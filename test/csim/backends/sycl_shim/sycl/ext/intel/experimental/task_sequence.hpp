// A FAKE of the oneAPI task_sequence, for tests only (see sycl/sycl.hpp here): async() runs the task to
// its end at once and get() returns. The generated kernel launches its tasks in the order of the
// layers, and the fake pipes are unbounded, so every task finds its inputs complete.
#ifndef HLS4ML_TEST_FAKE_TASK_SEQUENCE_HPP_
#define HLS4ML_TEST_FAKE_TASK_SEQUENCE_HPP_

#include <cstdio>
#include <cstdlib>

namespace sycl::ext::intel::experimental {

template <auto &Function> class task_sequence {
  public:
    template <class... Args> void async(Args... args) {
        Function(args...);
        pending_++;
    }
    void get() { pending_--; }
    ~task_sequence() {
        if (pending_ != 0) {
            std::fprintf(stderr, "fake SYCL: a task_sequence destroyed with %d async() not matched by get()\n",
                         pending_);
            std::abort();
        }
    }

  private:
    int pending_ = 0;
};

} // namespace sycl::ext::intel::experimental

#endif
