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
#ifdef HLS4ML_CSIM_NO_TEXT
#include <cstring>
#include <new>
#include <type_traits>
#else
#include <deque>
#include <string>
#endif

namespace hls {

#ifdef HLS4ML_CSIM_NO_TEXT
// Storage of freed FIFOs, kept per thread for the next FIFOs of the same element size: a model's top
// function makes its streams afresh at every call, and each would otherwise grow from 16 elements
// again (allocate, copy) for every sample. The largest few arrays of each size are kept. A FIFO
// destroyed after its thread's spares (a static stream at exit) frees its array itself. Not a
// template: a pool and a grow step per element type were compiled again in every compile unit of a
// split build (hls4ml/csim/units.py), 8 % of a CNN unit's g++ instructions and 21 % of its bridge's.
class spare_storage {
  public:
    // The largest array kept for elements of `element_size` bytes (nullptr when none), its capacity
    // in elements in `capacity`.
    __attribute__((noinline)) static void *reuse(std::size_t element_size, std::size_t &capacity) {
        capacity = 0;
        return closed() ? nullptr : of_this_thread().take(element_size, capacity);
    }

    __attribute__((noinline)) static void keep(void *items, std::size_t element_size, std::size_t capacity) {
        if (closed())
            ::operator delete(items);
        else
            of_this_thread().give(items, element_size, capacity);
    }

  private:
    spare_storage() = default;
    spare_storage(const spare_storage &) = delete;
    spare_storage &operator=(const spare_storage &) = delete;
    ~spare_storage() {
        closed() = true;
        for (slot &kept : slots_)
            ::operator delete(kept.items);
    }

    static spare_storage &of_this_thread() {
        static thread_local spare_storage storage;
        return storage;
    }

    static bool &closed() {
        static thread_local bool value = false;
        return value;
    }

    void *take(std::size_t element_size, std::size_t &capacity) {
        slot *largest = nullptr;
        for (slot &kept : slots_)
            if (kept.element_size == element_size && (largest == nullptr || kept.capacity > largest->capacity))
                largest = &kept;
        if (largest == nullptr)
            return nullptr;
        void *items = largest->items;
        capacity = largest->capacity;
        *largest = slot();
        return items;
    }

    // Keeps `items` in the first empty slot, else in place of the smallest array kept when that one is
    // smaller; frees the other.
    void give(void *items, std::size_t element_size, std::size_t capacity) {
        slot *smallest = &slots_[0];
        for (slot &kept : slots_) {
            if (kept.items == nullptr) {
                smallest = &kept;
                break;
            }
            smallest = kept.bytes < smallest->bytes ? &kept : smallest;
        }
        if (smallest->bytes < element_size * capacity) {
            ::operator delete(smallest->items);
            *smallest = slot{items, element_size, capacity, element_size * capacity};
        } else {
            ::operator delete(items);
        }
    }

    struct slot {
        void *items = nullptr;
        std::size_t element_size = 0, capacity = 0, bytes = 0;
    };
    slot slots_[64];
};

// A full ring's next array: for an empty ring (capacity 0) a spare one of the same element size when
// there is one, else twice the capacity (16 elements at first) holding the `count` elements from
// position `first` in order from position 0. Updates `capacity` and `first`; frees the old array.
// Out of line and not a template: one copy per compile unit serves every element type.
__attribute__((noinline)) inline void *ring_grow(void *items, std::size_t element_size, std::size_t &capacity,
                                                 std::size_t &first, std::size_t count) {
    if (capacity == 0) {
        void *spare = spare_storage::reuse(element_size, capacity);
        if (spare != nullptr)
            return spare;
    }
    const std::size_t grown = capacity ? 2 * capacity : 16;
    unsigned char *target = static_cast<unsigned char *>(::operator new(grown * element_size));
    const unsigned char *source = static_cast<const unsigned char *>(items);
    const std::size_t head = count < capacity - first ? count : capacity - first; // elements before the wrap
    if (count > 0) {
        std::memcpy(target, source + first * element_size, head * element_size);
        std::memcpy(target + head * element_size, source, (count - head) * element_size);
    }
    ::operator delete(items);
    capacity = grown;
    first = 0;
    return target;
}

// First-in first-out queue of T in one array that doubles when full (T: trivially copyable, as every
// type the generated code streams: its elements are copied as bytes). The same interface as the deque
// uses. The capacity is a power of two, so wrapping an index is a mask, not a division; growing is
// out of line (ring_grow): inlined into every write site of a model it was a quarter of the whole
// compile. The array comes from, and goes back to, the thread's spare_storage.
template <class T> class ring_fifo {
    static_assert(std::is_trivially_copyable<T>::value && alignof(T) <= alignof(std::max_align_t),
                  "hls::stream (C-simulation): the element type must be trivially copyable, of fundamental alignment");

  public:
    ring_fifo() = default;
    ring_fifo(const ring_fifo &) = delete;
    ring_fifo &operator=(const ring_fifo &) = delete;
    ~ring_fifo() {
        if (items_ != nullptr)
            spare_storage::keep(items_, sizeof(T), capacity_);
    }

    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    const T &front() const { return items_[first_]; }
    // The element `index` places behind the front and how many follow it in the array before it wraps
    // (`run`, counting it; index < size()).
    const T *run_at(std::size_t index, std::size_t &run) const {
        const std::size_t position = (first_ + index) & (capacity_ - 1);
        run = count_ - index < capacity_ - position ? count_ - index : capacity_ - position;
        return items_ + position;
    }
    void push_back(const T &value) {
        if (count_ == capacity_)
            items_ = static_cast<T *>(ring_grow(items_, sizeof(T), capacity_, first_, count_));
        items_[(first_ + count_) & (capacity_ - 1)] = value;
        ++count_;
    }
    void pop_front() {
        first_ = (first_ + 1) & (capacity_ - 1);
        --count_;
    }

  private:
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
    // The element `index` places behind the next to be read (index < size()), left in the stream, and in
    // `run` how many elements from it lie one after the other in memory (1 up to the rest): the
    // C-simulation's trace hooks copy a layer's output so, and the next layer reads it. The vendor's
    // stream has no such member; the hooks read and write back each element there.
    const T *peek_run(std::size_t index, std::size_t &run) const { return fifo_.run_at(index, run); }
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
