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

// The trace hook: copies a layer output as doubles into `buffer` when the caller asked for it
// (a null buffer means tracing is off).
template <class T, unsigned N> void trace_output(const T data[N], double *buffer) {
    if (buffer == nullptr)
        return;
    convert_data_back<T, double, N>(data, buffer);
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

// The copy of trace_stream, out of line and cold: inlined behind the null check at every traced layer
// it was a tenth of a model's compile, and it only runs when tracing. One copy per element type (the
// count is an argument): the layers of a CNN share a few element types.
template <class T>
__attribute__((noinline, cold)) void trace_stream_copy(stream<T> &fifo, double *buffer, unsigned n_elements) {
    for (unsigned e = 0; e < n_elements; e++) {
        const T element = fifo.read();
        for (unsigned j = 0; j < T::size; j++)
            buffer[e * T::size + j] = element[j].to_double();
        fifo.write(element);
    }
}

// The io_stream trace hook: copies the stream's elements into `buffer` and puts them back, so the next
// layer still reads them (C-simulation runs the layers one after the other).
template <class T, unsigned n_elements> void trace_stream(stream<T> &fifo, double *buffer) {
    if (buffer != nullptr)
        trace_stream_copy<T>(fifo, buffer, n_elements);
}

} // namespace nnet

#endif
