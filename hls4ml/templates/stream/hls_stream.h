// A C-simulation model of the Xilinx `hls::stream<T>` FIFO, written for this project (the vendor's
// header is proprietary). Same interface subset as the generated top level uses; in synthesis the
// vendor's own hls_stream.h is on the include path instead of this one.
//
//   hls::stream<T> s("name");   s.write(x); s << x;   x = s.read(); s >> x;
//   s.empty(), s.full() (never: the model is unbounded), s.size(), s.read_nb(x), s.write_nb(x)
//
// Reading an empty stream is a deadlock in hardware; here it prints the stream's name and aborts.
// Under HLS4ML_CSIM_NO_TEXT (the C-simulation build of hls4ml/csim/compiler.py) the FIFO is a small
// growable ring buffer instead of std::deque and the name a fixed char array, so neither <deque> nor
// <string> is parsed (a third of a small model's compile); name() then returns const char *.
#ifndef HLS4ML_HLS_STREAM_H_
#define HLS4ML_HLS_STREAM_H_

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#ifndef HLS4ML_CSIM_NO_TEXT
#include <deque>
#include <string>
#endif

namespace hls {

#ifdef HLS4ML_CSIM_NO_TEXT
// Storage of freed FIFOs of one element type, kept per thread for the next FIFOs of that type: a
// model's top function makes its streams afresh at every call, and each would otherwise grow from 16
// elements again (allocate, zero, copy) for every sample. The largest few buffers are kept. A FIFO
// destroyed after its thread's spares (a static stream at exit) frees its buffer itself.
template <class T> class spare_buffers {
  public:
    // The largest buffer kept (nullptr when none), its capacity in `capacity`.
    static T *reuse(std::size_t &capacity) {
        capacity = 0;
        return closed() ? nullptr : of_this_thread().take(capacity);
    }

    static void keep(T *items, std::size_t capacity) {
        if (closed())
            delete[] items;
        else
            of_this_thread().give(items, capacity);
    }

  private:
    spare_buffers() = default;
    spare_buffers(const spare_buffers &) = delete;
    spare_buffers &operator=(const spare_buffers &) = delete;
    ~spare_buffers() {
        closed() = true;
        for (slot &kept : slots_)
            delete[] kept.items;
    }

    static spare_buffers &of_this_thread() {
        static thread_local spare_buffers buffers;
        return buffers;
    }

    static bool &closed() {
        static thread_local bool value = false;
        return value;
    }

    T *take(std::size_t &capacity) {
        slot *largest = &slots_[0];
        for (slot &kept : slots_)
            largest = kept.capacity > largest->capacity ? &kept : largest;
        T *items = largest->items;
        capacity = largest->capacity;
        *largest = slot();
        return items;
    }

    // Keeps `items` in place of the smallest buffer kept when that one is smaller; frees the other.
    void give(T *items, std::size_t capacity) {
        slot *smallest = &slots_[0];
        for (slot &kept : slots_)
            smallest = kept.capacity < smallest->capacity ? &kept : smallest;
        if (smallest->capacity < capacity) {
            delete[] smallest->items;
            *smallest = slot{items, capacity};
        } else {
            delete[] items;
        }
    }

    struct slot {
        T *items = nullptr;
        std::size_t capacity = 0;
    };
    slot slots_[16];
};

// First-in first-out queue of T in one array that doubles when full (T: default-constructible and
// copy-assignable, as every type the generated code streams). The same interface as the deque uses.
// The capacity is a power of two, so wrapping an index is a mask, not a division; grow() is kept out
// of line: inlined into every write site of a model it was a quarter of the whole compile. The array
// comes from, and goes back to, the thread's spare_buffers.
template <class T> class ring_fifo {
  public:
    ring_fifo() = default;
    ring_fifo(const ring_fifo &) = delete;
    ring_fifo &operator=(const ring_fifo &) = delete;
    ~ring_fifo() {
        if (items_ != nullptr)
            release(items_, capacity_);
    }

    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    const T &front() const { return items_[first_]; }
    const T &at(std::size_t index) const { return items_[(first_ + index) & (capacity_ - 1)]; }
    void push_back(const T &value) {
        if (count_ == capacity_)
            grow();
        items_[(first_ + count_) & (capacity_ - 1)] = value;
        ++count_;
    }
    void pop_front() {
        first_ = (first_ + 1) & (capacity_ - 1);
        --count_;
    }

  private:
    __attribute__((noinline)) static void release(T *items, std::size_t capacity) {
        spare_buffers<T>::keep(items, capacity);
    }

    __attribute__((noinline)) void grow() {
        if (capacity_ == 0) {
            items_ = spare_buffers<T>::reuse(capacity_);
            if (items_ != nullptr)
                return;
        }
        const std::size_t capacity = capacity_ ? 2 * capacity_ : 16;
        T *items = new T[capacity];
        for (std::size_t k = 0; k < count_; ++k)
            items[k] = items_[(first_ + k) & (capacity_ - 1)];
        delete[] items_;
        items_ = items;
        capacity_ = capacity;
        first_ = 0;
    }

    T *items_ = nullptr;
    std::size_t capacity_ = 0, first_ = 0, count_ = 0;
};

// The stream's name for the empty-read message, truncated to 63 characters. The copy is out of
// line: a model's top function constructs one stream per layer.
class stream_name {
  public:
    __attribute__((noinline)) explicit stream_name(const char *name) {
        std::size_t length = 0;
        for (; name[length] != '\0' && length + 1 < sizeof(text_); ++length)
            text_[length] = name[length];
        text_[length] = '\0';
    }
    const char *c_str() const { return text_; }

  private:
    char text_[64];
};
#endif

// The deadlock report of a read from an empty stream: once, out of line, rather than at every read site.
[[noreturn]] __attribute__((noinline, cold)) inline void empty_read(const char *name) {
    std::fprintf(stderr, "hls::stream '%s': read from an empty stream (a deadlock in hardware)\n", name);
    std::abort();
}

template <class T> class stream {
  public:
    stream() : name_("hls::stream") {}
    explicit stream(const char *name) : name_(name) {}
#ifndef HLS4ML_CSIM_NO_TEXT
    explicit stream(const std::string &name) : name_(name) {}
#endif

    // Streams are channels between processes: copying one would duplicate its contents.
    stream(const stream &) = delete;
    stream &operator=(const stream &) = delete;

    bool empty() const { return fifo_.empty(); }
    bool full() const { return false; }
    std::size_t size() const { return fifo_.size(); }
#ifndef HLS4ML_CSIM_NO_TEXT
    const std::string &name() const { return name_; }
#else
    const char *name() const { return name_.c_str(); }
#endif

    void write(const T &value) { fifo_.push_back(value); }

    T read() {
        if (fifo_.empty())
            empty_read(name_.c_str());
        T value = fifo_.front();
        fifo_.pop_front();
        return value;
    }

    void read(T &value) { value = read(); }

#ifdef HLS4ML_CSIM_NO_TEXT
    // The element `index` places behind the next to be read (index < size()), left in the stream: the
    // C-simulation's trace hooks copy a layer's output so, and the next layer reads it. The vendor's
    // stream has no such member; the hooks read and write back each element there.
    const T &peek(std::size_t index) const { return fifo_.at(index); }
#endif

    // Non-blocking forms: false (and nothing moved) when the stream is empty / full.
    bool read_nb(T &value) {
        if (fifo_.empty())
            return false;
        value = read();
        return true;
    }

    bool write_nb(const T &value) {
        write(value);
        return true;
    }

    stream &operator<<(const T &value) {
        write(value);
        return *this;
    }

    stream &operator>>(T &value) {
        value = read();
        return *this;
    }

  private:
#ifndef HLS4ML_CSIM_NO_TEXT
    std::string name_;
    std::deque<T> fifo_;
#else
    stream_name name_;
    ring_fifo<T> fifo_;
#endif
};

} // namespace hls

#endif
