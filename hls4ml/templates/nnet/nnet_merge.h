// Merge layers, io_parallel: elementwise add, subtract, multiply, average, maximum, minimum of two
// inputs of the same shape; concatenate of two tensors of rank 1, 2 or 3; dot of two vectors.
//
// Every result is one write into res_T of a full-precision value: the exact sum, difference or
// product, the exact half of the sum (average), the larger or smaller input itself (compared
// exactly, whatever the two types), or a copied input value (concatenate). Dot accumulates into
// accum_t in index order. Tensors are flat, channels last.
#ifndef NNET_MERGE_H_
#define NNET_MERGE_H_

#include "nnet_common.h"

namespace nnet {

struct merge_config {
    // Required typedef for average only: half_t, a type holding 0.5 exactly (e.g. ap_ufixed<1,0>).
    static const unsigned n_elem = 10;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

struct concat_config {
    // Shapes of the two inputs without the batch axis (unused trailing sizes stay 1) and the
    // 0-based axis among them along which they are joined; the other sizes must agree.
    static const unsigned n_elem1_0 = 10;
    static const unsigned n_elem1_1 = 1;
    static const unsigned n_elem1_2 = 1;
    static const unsigned n_elem2_0 = 10;
    static const unsigned n_elem2_1 = 1;
    static const unsigned n_elem2_2 = 1;
    static const unsigned axis = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

struct dot_config {
    // Required typedef: accum_t.
    static const unsigned n_in = 10;
    static const unsigned n_out = 1;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// ---- elementwise merges -----------------------------------------------------------------------------

// The operations of the two-input elementwise loop (nnet_common.h), one output value each.
struct add_op {
    template <class A, class B, class R> void operator()(const A &a, const B &b, R &out) const { out = a + b; }
};

struct subtract_op {
    template <class A, class B, class R> void operator()(const A &a, const B &b, R &out) const { out = a - b; }
};

struct multiply_op {
    template <class A, class B, class R> void operator()(const A &a, const B &b, R &out) const { out = a * b; }
};

// (a + b) * 1/2: the exact half of the exact sum (one more fraction bit), then one write.
template <class half_T> struct average_op {
    half_T half;
    template <class A, class B, class R> void operator()(const A &a, const B &b, R &out) const {
        out = (a + b) * half;
    }
};

// The larger (smaller) input itself, compared exactly (greater_than never meets ap's mixed-sign <).
struct maximum_op {
    template <class A, class B, class R> void operator()(const A &a, const B &b, R &out) const {
        if (greater_than(b, a))
            out = b;
        else
            out = a;
    }
};

struct minimum_op {
    template <class A, class B, class R> void operator()(const A &a, const B &b, R &out) const {
        if (greater_than(a, b))
            out = b;
        else
            out = a;
    }
};

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void add(const input1_T data1[CONFIG_T::n_elem], const input2_T data2[CONFIG_T::n_elem], res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_elem>(data1, data2, res, add_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void subtract(const input1_T data1[CONFIG_T::n_elem], const input2_T data2[CONFIG_T::n_elem],
              res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_elem>(data1, data2, res, subtract_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void multiply(const input1_T data1[CONFIG_T::n_elem], const input2_T data2[CONFIG_T::n_elem],
              res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    constexpr unsigned multiplier_limit = ceil_div(CONFIG_T::n_elem, CONFIG_T::reuse_factor);
    NNET_ALLOCATION_MUL(multiplier_limit)
    elementwise<CONFIG_T::n_elem>(data1, data2, res, multiply_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void average(const input1_T data1[CONFIG_T::n_elem], const input2_T data2[CONFIG_T::n_elem],
             res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    const typename CONFIG_T::half_t half = 0.5;
    elementwise<CONFIG_T::n_elem>(data1, data2, res, average_op<typename CONFIG_T::half_t>{half});
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void maximum(const input1_T data1[CONFIG_T::n_elem], const input2_T data2[CONFIG_T::n_elem],
             res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_elem>(data1, data2, res, maximum_op());
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void minimum(const input1_T data1[CONFIG_T::n_elem], const input2_T data2[CONFIG_T::n_elem],
             res_T res[CONFIG_T::n_elem]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_elem>(data1, data2, res, minimum_op());
}

// ---- concatenate --------------------------------------------------------------------------------------

// Joining along an axis of a flat row-major tensor: `outer` blocks (the product of the sizes before
// the axis), each block of input 1 (`inner1` values: the sizes from the axis on) followed by the
// block of input 2 (`inner2` values).
template <unsigned outer, unsigned inner1, unsigned inner2, class input1_T, class input2_T, class res_T>
inline void concatenate_blocks(const input1_T data1[outer * inner1], const input2_T data2[outer * inner2],
                               res_T res[outer * (inner1 + inner2)]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned o = 0; o < outer; o++) {
        NNET_UNROLL
        for (unsigned j = 0; j < inner1; j++) {
            res[o * (inner1 + inner2) + j] = data1[o * inner1 + j];
        }
        NNET_UNROLL
        for (unsigned j = 0; j < inner2; j++) {
            res[o * (inner1 + inner2) + inner1 + j] = data2[o * inner2 + j];
        }
    }
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void concatenate1d(const input1_T data1[CONFIG_T::n_elem1_0], const input2_T data2[CONFIG_T::n_elem2_0],
                   res_T res[CONFIG_T::n_elem1_0 + CONFIG_T::n_elem2_0]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::axis == 0, "concatenate1d: axis must be 0");
    concatenate_blocks<1, CONFIG_T::n_elem1_0, CONFIG_T::n_elem2_0>(data1, data2, res);
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void concatenate2d(const input1_T data1[CONFIG_T::n_elem1_0 * CONFIG_T::n_elem1_1],
                   const input2_T data2[CONFIG_T::n_elem2_0 * CONFIG_T::n_elem2_1],
                   res_T res[CONFIG_T::n_elem1_0 * CONFIG_T::n_elem1_1 + CONFIG_T::n_elem2_0 * CONFIG_T::n_elem2_1]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::axis < 2, "concatenate2d: axis must be 0 or 1");
    static_assert(CONFIG_T::axis == 0 || CONFIG_T::n_elem1_0 == CONFIG_T::n_elem2_0, "concatenate2d: sizes differ");
    static_assert(CONFIG_T::axis == 1 || CONFIG_T::n_elem1_1 == CONFIG_T::n_elem2_1, "concatenate2d: sizes differ");
    constexpr bool first = CONFIG_T::axis == 0;
    constexpr unsigned outer = first ? 1 : CONFIG_T::n_elem1_0;
    constexpr unsigned inner1 = first ? CONFIG_T::n_elem1_0 * CONFIG_T::n_elem1_1 : CONFIG_T::n_elem1_1;
    constexpr unsigned inner2 = first ? CONFIG_T::n_elem2_0 * CONFIG_T::n_elem2_1 : CONFIG_T::n_elem2_1;
    concatenate_blocks<outer, inner1, inner2>(data1, data2, res);
}

template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void concatenate3d(const input1_T data1[CONFIG_T::n_elem1_0 * CONFIG_T::n_elem1_1 * CONFIG_T::n_elem1_2],
                   const input2_T data2[CONFIG_T::n_elem2_0 * CONFIG_T::n_elem2_1 * CONFIG_T::n_elem2_2],
                   res_T res[CONFIG_T::n_elem1_0 * CONFIG_T::n_elem1_1 * CONFIG_T::n_elem1_2 +
                             CONFIG_T::n_elem2_0 * CONFIG_T::n_elem2_1 * CONFIG_T::n_elem2_2]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    static_assert(CONFIG_T::axis < 3, "concatenate3d: axis must be 0, 1 or 2");
    typedef CONFIG_T C;
    constexpr unsigned axis = C::axis;
    static_assert(axis == 0 || C::n_elem1_0 == C::n_elem2_0, "concatenate3d: sizes off the axis differ");
    static_assert(axis == 1 || C::n_elem1_1 == C::n_elem2_1, "concatenate3d: sizes off the axis differ");
    static_assert(axis == 2 || C::n_elem1_2 == C::n_elem2_2, "concatenate3d: sizes off the axis differ");
    constexpr unsigned outer = axis == 0 ? 1 : axis == 1 ? C::n_elem1_0 : C::n_elem1_0 * C::n_elem1_1;
    constexpr unsigned tail1 = axis == 0 ? C::n_elem1_1 * C::n_elem1_2 : axis == 1 ? C::n_elem1_2 : 1;
    constexpr unsigned tail2 = axis == 0 ? C::n_elem2_1 * C::n_elem2_2 : axis == 1 ? C::n_elem2_2 : 1;
    constexpr unsigned size1 = axis == 0 ? C::n_elem1_0 : axis == 1 ? C::n_elem1_1 : C::n_elem1_2;
    constexpr unsigned size2 = axis == 0 ? C::n_elem2_0 : axis == 1 ? C::n_elem2_1 : C::n_elem2_2;
    concatenate_blocks<outer, size1 * tail1, size2 * tail2>(data1, data2, res);
}

// ---- dot ------------------------------------------------------------------------------------------------

// Keras Dot(axes=1) of two vectors: acc = 0; acc += data1[i] * data2[i] in index order (each += a
// write into accum_t, the product exact); res[0] = acc.
template <class input1_T, class input2_T, class res_T, typename CONFIG_T>
void dot1d(const input1_T data1[CONFIG_T::n_in], const input2_T data2[CONFIG_T::n_in], res_T res[1]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    constexpr unsigned multiplier_limit = ceil_div(CONFIG_T::n_in, CONFIG_T::reuse_factor);
    NNET_ALLOCATION_MUL(multiplier_limit)
    typename CONFIG_T::accum_t acc = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        acc += data1[i] * data2[i];
    }
    res[0] = acc;
}

} // namespace nnet

#endif
