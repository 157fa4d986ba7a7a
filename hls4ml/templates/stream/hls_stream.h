// A C-simulation model of the Xilinx `hls::stream<T>` FIFO, written for this project (the vendor's
// header is proprietary). Same interface subset as the generated top level uses; in synthesis the
// vendor's own hls_stream.h is on the include path instead of this one.
//
//   hls::stream<T> s("name");   s.write(x); s << x;   x = s.read(); s >> x;
//   s.empty(), s.full() (never: the model is unbounded), s.size(), s.read_nb(x), s.write_nb(x)
//
// Reading an empty stream is a deadlock in hardware; here it prints the stream's name and aborts.
#ifndef HLS4ML_HLS_STREAM_H_
#define HLS4ML_HLS_STREAM_H_

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>

namespace hls {

template <class T> class stream {
  public:
    stream() : name_("hls::stream") {}
    explicit stream(const char *name) : name_(name) {}
    explicit stream(const std::string &name) : name_(name) {}

    // Streams are channels between processes: copying one would duplicate its contents.
    stream(const stream &) = delete;
    stream &operator=(const stream &) = delete;

    bool empty() const { return fifo_.empty(); }
    bool full() const { return false; }
    std::size_t size() const { return fifo_.size(); }
    const std::string &name() const { return name_; }

    void write(const T &value) { fifo_.push_back(value); }

    T read() {
        if (fifo_.empty()) {
            std::fprintf(stderr, "hls::stream '%s': read from an empty stream (a deadlock in hardware)\n",
                         name_.c_str());
            std::abort();
        }
        T value = fifo_.front();
        fifo_.pop_front();
        return value;
    }

    void read(T &value) { value = read(); }

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
    std::string name_;
    std::deque<T> fifo_;
};

} // namespace hls

#endif
