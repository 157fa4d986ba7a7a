// Stream plumbing, io_stream: clone (one stream read once, written to two or three streams) and
// repack (the same values in elements of another size), plus the small helpers the io_stream
// kernels share.
//
// A streamed tensor is an nnet::stream of nnet::array elements (nnet_types.h): channels last, one
// element per position; a 1-D vector is one element. Every value written is a write into the
// target element type (a copy when the types agree), nothing is computed.
#ifndef NNET_STREAM_H_
#define NNET_STREAM_H_

#if !defined(HLS4ML_STREAM_AC_CHANNEL) && !(defined(HLS4ML_DIALECT_ONEAPI) && defined(__SYNTHESIS__))
#include "hls_stream.h" // before the dialect, which then declares the nnet::stream alias
#endif
#include "nnet_types.h"

namespace nnet {

struct clone_config {
    static const unsigned n_elem = 10; // values of the tensor (a multiple of the element size)
    static const unsigned io_type = io_stream;
    static const unsigned reuse_factor = 1;
};

struct repack_config {
    static const unsigned n_elem = 10; // values of the tensor (a multiple of both element sizes)
    static const unsigned io_type = io_stream;
    static const unsigned reuse_factor = 1;
};

// The number of elements of a tensor of n values streamed in elements of data_T.
template <class data_T, unsigned n> struct stream_elements {
    static_assert(n % data_T::size == 0, "stream: the tensor size must be a multiple of the element size");
    static const unsigned count = n / data_T::size;
};

// out[j] = in[j] for every value of an element (one write into res_T's value type each).
template <class data_T, class res_T> inline void copy_element(const data_T &in, res_T &out) {
    NNET_INLINE
    static_assert(data_T::size == res_T::size, "stream: element sizes differ");
    NNET_UNROLL
    for (unsigned j = 0; j < data_T::size; j++) {
        out[j] = in[j];
    }
}

// An element of zeros (each an integer 0 written into the value type).
template <class res_T> inline res_T zero_element() {
    NNET_INLINE
    res_T out;
    NNET_UNROLL
    for (unsigned j = 0; j < res_T::size; j++) {
        out[j] = 0;
    }
    return out;
}

// ---- whole tensors ------------------------------------------------------------------------------------
// The kernels that need a whole tensor before computing (transpose, gathers, einsum) read it into an
// array and write their result back, element after element, with these two.

// The n values of a stream, element after element, into `buffer` (each a copy).
template <unsigned n, class data_T>
inline void read_whole(stream<data_T> &data, typename data_T::value_type buffer[n]) {
    NNET_INLINE
    for (unsigned e = 0; e < stream_elements<data_T, n>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        NNET_UNROLL
        for (unsigned j = 0; j < data_T::size; j++) {
            buffer[e * data_T::size + j] = in[j];
        }
    }
}

// The n values of `buffer` onto a stream, res_T::size values per element.
template <unsigned n, class res_T>
inline void write_whole(const typename res_T::value_type buffer[n], stream<res_T> &res) {
    NNET_INLINE
    for (unsigned e = 0; e < stream_elements<res_T, n>::count; e++) {
        NNET_PIPELINE(1)
        res_T out;
        NNET_UNROLL
        for (unsigned j = 0; j < res_T::size; j++) {
            out[j] = buffer[e * res_T::size + j];
        }
        res.write(out);
    }
}

// ---- the element-wise loop of io_stream kernels ------------------------------------------------------
// The io_parallel loop (nnet_common.h) over a stream of N values: per element, one pipelined step
// (II = 1) reads one element of each input, applies the operation to every value and writes one
// element. The operation gets the flat index e * size + j of a value.

template <unsigned N, class data_T, class res_T, class Op>
inline void elementwise_stream(stream<data_T> &data, stream<res_T> &res, const Op &op) {
    NNET_INLINE
    static_assert(data_T::size == res_T::size, "elementwise stream: the input and the result element sizes differ");
    for (unsigned e = 0; e < stream_elements<data_T, N>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        NNET_UNROLL
        for (unsigned j = 0; j < res_T::size; j++) {
            op(in[j], out[j], e * res_T::size + j);
        }
        res.write(out);
    }
}

template <unsigned N, class input1_T, class input2_T, class res_T, class Op>
inline void elementwise_stream(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res, const Op &op) {
    NNET_INLINE
    static_assert(input1_T::size == input2_T::size && input1_T::size == res_T::size,
                  "elementwise stream: the inputs and the result must have the same element size");
    for (unsigned e = 0; e < stream_elements<input1_T, N>::count; e++) {
        NNET_PIPELINE(1)
        const input1_T a = data1.read();
        const input2_T b = data2.read();
        res_T out;
        NNET_UNROLL
        for (unsigned j = 0; j < res_T::size; j++) {
            op(a[j], b[j], out[j]);
        }
        res.write(out);
    }
}

// ---- clone ------------------------------------------------------------------------------------------

template <class data_T, class res_T, typename CONFIG_T>
void clone(stream<data_T> &data, stream<res_T> &res1, stream<res_T> &res2) {
    for (unsigned e = 0; e < stream_elements<data_T, CONFIG_T::n_elem>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        copy_element(in, out);
        res1.write(out);
        res2.write(out);
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void clone(stream<data_T> &data, stream<res_T> &res1, stream<res_T> &res2, stream<res_T> &res3) {
    for (unsigned e = 0; e < stream_elements<data_T, CONFIG_T::n_elem>::count; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        res_T out;
        copy_element(in, out);
        res1.write(out);
        res2.write(out);
        res3.write(out);
    }
}

// ---- repack -----------------------------------------------------------------------------------------

// The n_elem values in the same flat order, read in elements of data_T::size and written in elements
// of res_T::size (Flatten / Reshape between stream layers). The sizes need not divide each other:
// values are moved one at a time into the output element being filled, which is written when full.
template <class data_T, class res_T, typename CONFIG_T>
void repack(stream<data_T> &data, stream<res_T> &res) {
    constexpr unsigned n_in = stream_elements<data_T, CONFIG_T::n_elem>::count;
    static_assert(CONFIG_T::n_elem % res_T::size == 0, "repack: n_elem must be a multiple of both element sizes");
    res_T out;
    unsigned filled = 0;
    for (unsigned e = 0; e < n_in; e++) {
        NNET_PIPELINE(1)
        const data_T in = data.read();
        NNET_UNROLL
        for (unsigned j = 0; j < data_T::size; j++) {
            out[filled] = in[j];
            filled++;
            if (filled == res_T::size) {
                res.write(out);
                filled = 0;
            }
        }
    }
}

} // namespace nnet

#endif
