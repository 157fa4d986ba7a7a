// Helpers for the generated C-simulation bridge (never synthesized): moving data between the
// caller's float/double buffers and the typed arrays of the firmware, and tracing layer outputs.
#ifndef NNET_HELPERS_H_
#define NNET_HELPERS_H_

#include "nnet_common.h"

namespace nnet {

// dst[i] = src[i]: a float or double written into a fixed-point type (its rounding and
// saturation apply, exactly as `T x = 0.1;` would).
template <class src_T, class dst_T, unsigned N> void convert_data(const src_T src[N], dst_T dst[N]) {
    for (unsigned i = 0; i < N; i++) {
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

} // namespace nnet

#endif
