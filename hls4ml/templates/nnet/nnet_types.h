// Element types of the io_stream kernels. A streamed tensor is an `nnet::stream` (see the dialect
// header) of `nnet::array<T, N>` elements: channels-last, one element holds the N values of one
// position (all channels of one pixel), and a 1-D vector of n values travels as one element of n.
// The struct is a plain aggregate (copyable, brace-initializable) and carries no pragmas: the
// kernels partition the arrays they declare themselves.
//
// `nnet::stream<T>` comes from the dialect (nnet_common.h): ac_channel with -DHLS4ML_STREAM_AC_CHANNEL
// (Catapult), else hls::stream whenever hls_stream.h is on the include path (the vendor's, or ours
// from templates/stream/); the io_stream kernel headers include hls_stream.h themselves.
#ifndef NNET_TYPES_H_
#define NNET_TYPES_H_

#include "nnet_common.h"

namespace nnet {

template <class T, unsigned N> struct array {
    typedef T value_type;
    static const unsigned size = N;

    T data[N];

    T &operator[](unsigned i) { return data[i]; }
    const T &operator[](unsigned i) const { return data[i]; }
};

template <class T, unsigned N> const unsigned array<T, N>::size;

} // namespace nnet

#endif
