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

// The copy of the trace hooks: the `n` values of type T from `bytes` on (one after the other, as in an
// array of T or a run of stream elements nnet::array<T, N>) into the buffer, as doubles narrowed to the
// buffer's type (floats as numpy narrows: exact below 25 bits, rounded once otherwise). The buffer
// never overlaps the values (__restrict: without it the stores could change the bytes read, and g++
// would not vectorise). One copy per value type, for both IO types and float types: inlined, or one per
// element type, the copies were a third of a CNN's compile units, and they run only when tracing. A
// split build compiles the copy of the model's common type once (hls4ml/writer/csim_units.py).
template <class T> __attribute__((noinline)) void trace_values(const unsigned char *bytes, unsigned n, trace_buffer buffer) {
    if (buffer.single) {
        float *__restrict row = static_cast<float *>(buffer.values);
        for (unsigned i = 0; i < n; i++)
            row[i] = static_cast<float>(reinterpret_cast<const T *>(bytes + i * sizeof(T))->to_double());
    } else {
        double *__restrict row = static_cast<double *>(buffer.values);
        for (unsigned i = 0; i < n; i++)
            row[i] = reinterpret_cast<const T *>(bytes + i * sizeof(T))->to_double();
    }
}

// The trace buffer `offset` values further on.
inline trace_buffer trace_after(const trace_buffer &buffer, long offset) {
    return trace_row(buffer.values, buffer.single, offset);
}

// std::size_t, without a standard header.
typedef decltype(sizeof(0)) trace_count;

// Whether the stream model shows its waiting elements without reading them (our C-simulation model).
// Without <type_traits>: the standard headers' own pragmas would show in every kernel header's expansion.
template <bool> struct peek_tag {};
template <class S> class has_peek {
    static trace_count &run(); // never defined: named only where nothing is evaluated
    template <class U>
    static constexpr bool test(decltype(void(static_cast<const U *>(nullptr)->peek_run(0, run())), 0)) {
        return true;
    }
    template <class U> static constexpr bool test(...) { return false; }

  public:
    static constexpr bool value = test<S>(0);
};

// The io_stream copy: the n_elements waiting in `fifo`, looked at in place in runs of consecutive
// elements where the stream model allows it, else read and written back one at a time (the next layer
// reads them all the same).
template <class T> void trace_waiting(stream<T> &fifo, const trace_buffer &buffer, unsigned n_elements, peek_tag<true>) {
    typedef typename T::value_type value_type;
    static_assert(sizeof(T) == T::size * sizeof(value_type), "a stream element is its values, one after the other");
    if (fifo.size() < n_elements) { // an element missing: the read from the emptied stream reports the deadlock
        while (!fifo.empty())
            fifo.read();
        fifo.read();
        return;
    }
    trace_count run = 0;
    for (trace_count e = 0; e < n_elements; e += run) {
        const T *elements = fifo.peek_run(e, run);
        if (run > n_elements - e)
            run = n_elements - e;
        trace_values<value_type>(reinterpret_cast<const unsigned char *>(elements), unsigned(run * T::size),
                                 trace_after(buffer, long(e * T::size)));
    }
}

template <class T> void trace_waiting(stream<T> &fifo, const trace_buffer &buffer, unsigned n_elements, peek_tag<false>) {
    for (unsigned e = 0; e < n_elements; e++) {
        const T element = fifo.read();
        trace_values<typename T::value_type>(reinterpret_cast<const unsigned char *>(&element[0]), T::size,
                                             trace_after(buffer, long(e * T::size)));
        fifo.write(element);
    }
}

// The io_parallel trace hook: copies a layer output into `buffer` when tracing.
template <class T, unsigned N> void trace_output(const T data[N], const trace_buffer &buffer) {
    if (buffer.values != nullptr)
        trace_values<T>(reinterpret_cast<const unsigned char *>(data), N, buffer);
}

// The io_stream trace hook: copies the stream's elements into `buffer` and leaves them in the stream, so
// the next layer still reads them (C-simulation runs the layers one after the other).
template <class T, unsigned n_elements> void trace_stream(stream<T> &fifo, const trace_buffer &buffer) {
    if (buffer.values != nullptr)
        trace_waiting<T>(fifo, buffer, n_elements, peek_tag<has_peek<stream<T>>::value>());
}

} // namespace nnet

#endif
