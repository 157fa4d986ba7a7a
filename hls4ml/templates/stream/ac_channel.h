// A C-simulation model of the Algorithmic C `ac_channel<T>` FIFO (Catapult's stream type), written for
// this project. Same interface subset as the generated code and testbenches use; in Catapult the
// tool's own ac_channel.h is on the include path instead of this one.
//
//   ac_channel<T> c;  ac_channel<T> c(n);  ac_channel<T> c(n, value);   (pre-filled with n values)
//   c.write(x);  x = c.read();  c.read(x);  c.nb_read(x);  c.nb_write(x)
//   c.empty(), c.size(), c.available(k) (at least k values waiting), c.reset(), c.debug_size()
//
// The model is unbounded (writes always succeed). Reading an empty channel is a deadlock in hardware;
// here it prints a message and aborts, or throws std::runtime_error when AC_ASSERT_THROW_EXCEPTION is
// defined (the behaviour the Algorithmic C headers document).
#ifndef HLS4ML_AC_CHANNEL_H_
#define HLS4ML_AC_CHANNEL_H_

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <stdexcept>

template <class T> class ac_channel {
  public:
    ac_channel() {}
    explicit ac_channel(int init) : fifo_(init > 0 ? init : 0) {}
    ac_channel(int init, const T &value) : fifo_(init > 0 ? init : 0, value) {}

    // Channels connect processes: copying one would duplicate its contents.
    ac_channel(const ac_channel &) = delete;
    ac_channel &operator=(const ac_channel &) = delete;

    bool empty() const { return fifo_.empty(); }
    unsigned size() const { return static_cast<unsigned>(fifo_.size()); }
    unsigned debug_size() const { return size(); }
    bool available(unsigned count) const { return fifo_.size() >= count; }
    void reset() { fifo_.clear(); }

    void write(const T &value) { fifo_.push_back(value); }

    T read() {
        if (fifo_.empty())
            read_from_empty();
        T value = fifo_.front();
        fifo_.pop_front();
        return value;
    }

    void read(T &value) { value = read(); }

    // Non-blocking forms: false (and nothing moved) when the channel is empty; a write always succeeds.
    bool nb_read(T &value) {
        if (fifo_.empty())
            return false;
        value = read();
        return true;
    }

    bool nb_write(T &value) {
        write(value);
        return true;
    }

  private:
    [[noreturn]] static void read_from_empty() {
        static const char message[] = "ac_channel: read from an empty channel (a deadlock in hardware)";
#ifdef AC_ASSERT_THROW_EXCEPTION
        throw std::runtime_error(message);
#else
        std::fprintf(stderr, "%s\n", message);
        std::abort();
#endif
    }

    std::deque<T> fifo_;
};

#endif
