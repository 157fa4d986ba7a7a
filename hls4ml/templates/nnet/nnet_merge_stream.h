// Merge layers for io_stream: elementwise add, subtract, multiply, average, maximum, minimum of two
// streams with the same packing; concatenate of two tensors of rank 1, 2 or 3; dot of two vectors.
//
// The config structs and the value operations are those of io_parallel (nnet_merge.h), so every
// result is the same write and the bits are identical. Elementwise merges read one element of each
// input and write one element (CONFIG_T::n_elem values in total).
//
// Concatenate (concat_config, shapes without the batch axis, channels last; an element holds the
// values of the last axis):
//   * along the last axis (rank 1: axis 0; rank 2: axis 1; rank 3: axis 2): per position, the result
//     element is the element of input 1 followed by the element of input 2;
//   * along an earlier axis: for each index of the axes before it, the elements of input 1's block,
//     then those of input 2's block (axis 0: all of input 1, then all of input 2).
// dot1d reads one element of n_in values from each input and writes one element of one value.
#ifndef NNET_MERGE_STREAM_H_
#define NNET_MERGE_STREAM_H_

#include "nnet_merge.h"
#include "nnet_stream.h"

namespace nnet {

// ---- elementwise merges -----------------------------------------------------------------------------

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void add(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_elem>(data1, data2, res, add_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void subtract(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_elem>(data1, data2, res, subtract_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void multiply(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_elem>(data1, data2, res, multiply_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void average(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    const typename CONFIG_T::half_t half = 0.5;
    elementwise_stream<CONFIG_T::n_elem>(data1, data2, res, average_op<typename CONFIG_T::half_t>{half});
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void maximum(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_elem>(data1, data2, res, maximum_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void minimum(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    elementwise_stream<CONFIG_T::n_elem>(data1, data2, res, minimum_op());
}

// ---- concatenate --------------------------------------------------------------------------------------

// Along the last axis (Last = true): `outer` times, one element of each input joined into one result
// element (the io_parallel block copy on the two elements' values). Along an earlier axis (Last =
// false): `outer` times, `block1` elements of input 1 then `block2` elements of input 2, copied.
// A class template so that only the form the config selects is instantiated (C++14).
template <bool Last, unsigned outer, unsigned block1, unsigned block2> struct concatenate_stream;

template <unsigned outer, unsigned block1, unsigned block2> struct concatenate_stream<true, outer, block1, block2> {
    template <class input1_T, class input2_T, class res_T>
    static void run(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
        NNET_INLINE
        static_assert(input1_T::size + input2_T::size == res_T::size,
                      "concatenate stream: the result element must hold both input elements");
        for (unsigned p = 0; p < outer; p++) {
            NNET_PIPELINE(1)
            const input1_T a = data1.read();
            const input2_T b = data2.read();
            res_T out;
            concatenate_blocks<1, input1_T::size, input2_T::size>(a.data, b.data, out.data);
            res.write(out);
        }
    }
};

template <unsigned outer, unsigned block1, unsigned block2> struct concatenate_stream<false, outer, block1, block2> {
    template <class input1_T, class input2_T, class res_T>
    static void run(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
        NNET_INLINE
        for (unsigned o = 0; o < outer; o++) {
            for (unsigned e = 0; e < block1; e++) {
                NNET_PIPELINE(1)
                res_T out;
                copy_element(data1.read(), out);
                res.write(out);
            }
            for (unsigned e = 0; e < block2; e++) {
                NNET_PIPELINE(1)
                res_T out;
                copy_element(data2.read(), out);
                res.write(out);
            }
        }
    }
};

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void concatenate1d(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    static_assert(CONFIG_T::axis == 0, "concatenate1d: axis must be 0");
    static_assert(input1_T::size == CONFIG_T::n_elem1_0 && input2_T::size == CONFIG_T::n_elem2_0,
                  "concatenate1d stream: a vector is one element");
    concatenate_stream<true, 1, 1, 1>::run(data1, data2, res);
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void concatenate2d(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    typedef CONFIG_T C;
    static_assert(C::axis < 2, "concatenate2d: axis must be 0 or 1");
    static_assert(C::axis == 0 || C::n_elem1_0 == C::n_elem2_0, "concatenate2d: sizes differ");
    static_assert(C::axis == 1 || C::n_elem1_1 == C::n_elem2_1, "concatenate2d: sizes differ");
    static_assert(input1_T::size == C::n_elem1_1 && input2_T::size == C::n_elem2_1,
                  "concatenate2d stream: an element holds the last axis");
    constexpr bool last = C::axis == 1;
    concatenate_stream<last, last ? C::n_elem1_0 : 1, C::n_elem1_0, C::n_elem2_0>::run(data1, data2, res);
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void concatenate3d(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    typedef CONFIG_T C;
    static_assert(C::axis < 3, "concatenate3d: axis must be 0, 1 or 2");
    static_assert(C::axis == 0 || C::n_elem1_0 == C::n_elem2_0, "concatenate3d: sizes off the axis differ");
    static_assert(C::axis == 1 || C::n_elem1_1 == C::n_elem2_1, "concatenate3d: sizes off the axis differ");
    static_assert(C::axis == 2 || C::n_elem1_2 == C::n_elem2_2, "concatenate3d: sizes off the axis differ");
    static_assert(input1_T::size == C::n_elem1_2 && input2_T::size == C::n_elem2_2,
                  "concatenate3d stream: an element holds the last axis");
    constexpr unsigned axis = C::axis;
    constexpr unsigned outer = axis == 2 ? C::n_elem1_0 * C::n_elem1_1 : axis == 1 ? C::n_elem1_0 : 1;
    constexpr unsigned block1 = axis == 1 ? C::n_elem1_1 : C::n_elem1_0 * C::n_elem1_1;
    constexpr unsigned block2 = axis == 1 ? C::n_elem2_1 : C::n_elem2_0 * C::n_elem2_1;
    concatenate_stream<axis == 2, outer, block1, block2>::run(data1, data2, res);
}

// ---- dot ------------------------------------------------------------------------------------------------

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void dot1d(stream<input1_T> &data1, stream<input2_T> &data2, stream<res_T> &res) {
    static_assert(input1_T::size == CONFIG_T::n_in && input2_T::size == CONFIG_T::n_in,
                  "dot1d stream: each input is one element of n_in values");
    static_assert(res_T::size == 1, "dot1d stream: the result is one element of one value");
    const input1_T a = data1.read();
    const input2_T b = data2.read();
    res_T out;
    dot1d<typename input1_T::value_type, typename input2_T::value_type, typename res_T::value_type, CONFIG_T>(
        a.data, b.data, out.data);
    res.write(out);
}

} // namespace nnet

#endif
