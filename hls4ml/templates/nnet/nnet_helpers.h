// Helpers for the generated C-simulation bridge (never synthesized): moving data between the
// caller's float/double buffers and the typed arrays of the firmware, and tracing layer outputs.
#ifndef NNET_HELPERS_H_
#define NNET_HELPERS_H_

#include "nnet_common.h"
#include "nnet_types.h"

namespace nnet {

// dst[i] = src[i]: a float or double written into a fixed-point type (its rounding and
// saturation apply, exactly as `T x = 0.1;` would).
template <class src_T, class dst_T, unsigned N> void convert_data(const src_T src[N], dst_T dst[N]) {
    for (unsigned i = 0; i < N; i++) {
        dst[i] = src[i];
    }
}

// dst[i] = src[i] for the n values of a constant array, when the C-simulation library loads
// (firmware/weights/*.h of its source tree, hls4ml/writer/csim_weights.py). Out of line and
// instantiated once per type, not once per array: inlined into every array's initialiser, the
// conversion from double was most of the compile time of a unit holding a few small layers.
template <class T> __attribute__((noinline)) void load_constants(T *dst, const double *src, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        dst[i] = src[i];
    }
}

// dst[i] = src[i].to_double(), then narrowed to dst_T (float or double). Exact into double when
// the type has at most 53 bits.
template <class src_T, class dst_T, unsigned N> void convert_data_back(const src_T src[N], dst_T dst[N]) {
    for (unsigned i = 0; i < N; i++) {
        dst[i] = static_cast<dst_T>(src[i].to_double());
    }
}

// io_stream: the values src[0 .. n_elements * T::size) written into `fifo` as n_elements elements
// (nnet::stream: hls::stream or ac_channel, by dialect).
template <class T, unsigned n_elements> void write_stream(const double *src, stream<T> &fifo) {
    for (unsigned e = 0; e < n_elements; e++) {
        T element;
        for (unsigned j = 0; j < T::size; j++)
            element[j] = src[e * T::size + j];
        fifo.write(element);
    }
}

// io_stream: n_elements elements read from `fifo` into dst as doubles.
template <class T, unsigned n_elements> void read_stream(stream<T> &fifo, double *dst) {
    for (unsigned e = 0; e < n_elements; e++) {
        const T element = fifo.read();
        for (unsigned j = 0; j < T::size; j++)
            dst[e * T::size + j] = element[j].to_double();
    }
}

// Where a traced layer's values go (C-simulation only): its row of the caller's trace array, of floats
// or doubles (the caller's dtype, so that no pass over the traces narrows doubles afterwards), or
// nowhere (`values` null: tracing off; a static one starts so). A plain aggregate, for C++11 compilers.
struct trace_buffer {
    void *values;
    bool single; // floats (else doubles)
};

// The trace buffer at value `offset` of the caller's array `base` (null: tracing off).
inline trace_buffer trace_row(void *base, bool single, long offset) {
    if (base == nullptr)
        return {nullptr, false};
    if (single)
        return {static_cast<float *>(base) + offset, true};
    return {static_cast<double *>(base) + offset, false};
}

// The copies of the trace hooks are out of line: inlined behind the null check at every traced layer they
// were a tenth of a model's compile, and they only run when tracing. One copy per value or element type
// and float type (the count is an argument): the layers of a model share a few types. Floats are the
// doubles narrowed, as numpy narrows them: exact below 25 bits, rounded once otherwise.
// The io_parallel copy:
template <class Float, class T> __attribute__((noinline)) void trace_copy(const T *data, Float *buffer, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        buffer[i] = static_cast<Float>(data[i].to_double());
}

// Whether the stream model shows its waiting elements without reading them (our C-simulation model).
// Without <type_traits>: the standard headers' own pragmas would show in every kernel header's expansion.
template <bool> struct peek_tag {};
template <class S> class has_peek {
    template <class U> static constexpr bool test(decltype(void(static_cast<const U *>(nullptr)->peek(0)), 0)) {
        return true;
    }
    template <class U> static constexpr bool test(...) { return false; }

  public:
    static constexpr bool value = test<S>(0);
};

// One stream element's values into `row`, converted into a local array first and then copied: so g++ -O2
// vectorises the conversion (about five times faster than converting into `row` one value at a time).
template <class Float, class T> inline void trace_element(const T &element, Float *row) {
    Float values[T::size];
    for (unsigned j = 0; j < T::size; j++)
        values[j] = static_cast<Float>(element[j].to_double());
    for (unsigned j = 0; j < T::size; j++)
        row[j] = values[j];
}

// The io_stream copy: the n_elements waiting in `fifo`, looked at in place where the stream model allows
// it, else read and written back (the next layer reads them all the same). Out of line, not cold: the
// size-optimised loop of a cold function called the stream's read and write out of line.
template <class Float, class T>
void trace_waiting(const stream<T> &fifo, Float *buffer, unsigned n_elements, peek_tag<true>) {
    for (unsigned e = 0; e < n_elements; e++)
        trace_element<Float, T>(fifo.peek(e), buffer + e * T::size);
}

template <class Float, class T>
void trace_waiting(stream<T> &fifo, Float *buffer, unsigned n_elements, peek_tag<false>) {
    for (unsigned e = 0; e < n_elements; e++) {
        const T element = fifo.read();
        trace_element<Float, T>(element, buffer + e * T::size);
        fifo.write(element);
    }
}

template <class Float, class T>
__attribute__((noinline)) void trace_stream_copy(stream<T> &fifo, Float *buffer, unsigned n_elements) {
    if (fifo.size() < n_elements) // a missing element: the read reports the deadlock
        trace_waiting<Float, T>(fifo, buffer, n_elements, peek_tag<false>());
    else
        trace_waiting<Float, T>(fifo, buffer, n_elements, peek_tag<has_peek<stream<T>>::value>());
}

// The io_parallel trace hook: copies a layer output into `buffer` when tracing.
template <class T, unsigned N> void trace_output(const T data[N], const trace_buffer &buffer) {
    if (buffer.values == nullptr)
        return;
    if (buffer.single)
        trace_copy<float, T>(data, static_cast<float *>(buffer.values), N);
    else
        trace_copy<double, T>(data, static_cast<double *>(buffer.values), N);
}

// The io_stream trace hook: copies the stream's elements into `buffer` and leaves them in the stream, so
// the next layer still reads them (C-simulation runs the layers one after the other).
template <class T, unsigned n_elements> void trace_stream(stream<T> &fifo, const trace_buffer &buffer) {
    if (buffer.values == nullptr)
        return;
    if (buffer.single)
        trace_stream_copy<float, T>(fifo, static_cast<float *>(buffer.values), n_elements);
    else
        trace_stream_copy<double, T>(fifo, static_cast<double *>(buffer.values), n_elements);
}

} // namespace nnet

#endif
