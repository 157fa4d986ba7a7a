// A bounded FIFO in a plain array: what nnet::stream<T> is inside a oneAPI device build (icpx with
// __SYNTHESIS__), where our C-simulation stream model (a std::deque) cannot go.
//
// In that build each layer is a task of its own that fills its input FIFOs from the pipe of the
// tensor, runs the layer's kernel, and empties its output FIFOs into their pipes (the generated
// kernel.cpp). A FIFO therefore holds one whole tensor of one sample. Its capacity comes from
// nnet::stream_capacity<T>, which the generated kernel header specialises for each element type of
// the model: the elements of its largest tensor of that type. An element type without one does not
// compile.
//
// The kernels use write() and read() only. Overrunning or reading an empty FIFO is a bug of the
// generated code; a host compile (no __SYCL_DEVICE_ONLY__) checks it and aborts with a message.
#ifndef NNET_FIFO_H_
#define NNET_FIFO_H_

#ifndef __SYCL_DEVICE_ONLY__
#include <cstdio>
#include <cstdlib>
#endif

namespace nnet {

template <class T> struct stream_capacity; // specialised by the generated kernel header

template <class T, unsigned Capacity> class fifo {
    static_assert(Capacity > 0, "fifo: the capacity must be positive");

  public:
    fifo() = default;
    explicit fifo(const char *) {}

    fifo(const fifo &) = delete;
    fifo &operator=(const fifo &) = delete;

    void write(const T &value) {
        check(count_ < Capacity, "write to a full FIFO");
        values_[tail_] = value;
        tail_ = next(tail_);
        count_++;
    }

    T read() {
        check(count_ > 0, "read from an empty FIFO");
        const T value = values_[head_];
        head_ = next(head_);
        count_--;
        return value;
    }

    bool empty() const { return count_ == 0; }
    bool full() const { return count_ == Capacity; }
    unsigned size() const { return count_; }

  private:
    static unsigned next(unsigned position) { return position + 1 == Capacity ? 0 : position + 1; }

    static void check(bool condition, const char *what) {
#ifndef __SYCL_DEVICE_ONLY__
        if (!condition) {
            std::fprintf(stderr, "nnet::fifo<%u>: %s (a generated-code bug)\n", Capacity, what);
            std::abort();
        }
#else
        (void)condition;
        (void)what;
#endif
    }

    T values_[Capacity];
    unsigned head_ = 0;
    unsigned tail_ = 0;
    unsigned count_ = 0;
};

} // namespace nnet

#endif
