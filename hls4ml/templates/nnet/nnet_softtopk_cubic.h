// Sparse soft top-k mask with p = 4/3, io_parallel (docs/topk.md, seed-layers.md B.2 "General p").
//
//   y_i = clip(u_i, 0, 1)^3, u_i = (x_i - t) / l, with t such that sum_i y_i = k
//
// The search, per vector, on z = x (1 / l) (one product per input, a shift when l = 2^e), where l = 1:
//   1. all-pairs ranks (nnet_topk.h) give the k-th and (k+1)-th largest z;
//   2. fast path: if z_(k) - z_(k+1) >= 1 or k = n_in, the output is the hard top-k mask (exact for any p);
//   3. else `iterations` bisection steps on [z_(k) - 1, z_(k+1)], each one a sum of n_in clipped cubes
//      compared with k; the budget is cubic between its breakpoints, so there is no linear polish;
//   4. the outputs at the centre of the last bracket.
// Writes: z into abs_t, bounds and midpoints into threshold_t (exact), u = z - tau into ramp_t, u^2 and u^3
// into cube_t (rounded down, so the computed budget never exceeds the exact one of that z), the budget into
// sum_t (exact), the outputs into res_T. The types come from hls4ml/model/reference/soft_topk_cubic.py, the
// bit-exact twin of this file.
#ifndef NNET_SOFTTOPK_CUBIC_H_
#define NNET_SOFTTOPK_CUBIC_H_

#include "nnet_common.h"
#include "nnet_topk.h"

namespace nnet {

struct soft_topk_cubic_config {
    // Required typedefs: abs_t (z), threshold_t, param_t, ramp_t, cube_t, sum_t.
    static const unsigned n_in = 8;
    static const unsigned k = 2;
    static const unsigned iterations = 14;
    static const bool magnitude = false; // the ranks are taken of z itself
    static const bool largest = true;
    static constexpr double inv_l = 4; // 1 / l, rounded down into param_t
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// clip(u, 0, 1)^3 for u = z - tau: 0 at or below tau, 1 from tau + 1 on, else the rounded cube.
template <typename CONFIG_T, class key_T>
inline typename CONFIG_T::cube_t soft_topk_cube(const key_T &key, const typename CONFIG_T::threshold_t &t) {
    NNET_INLINE
    const auto difference = key - t;
    if (!is_positive(difference))
        return 0;
    if (!greater_than(1, difference))
        return 1;
    const typename CONFIG_T::ramp_t u = difference;
    const typename CONFIG_T::cube_t square = u * u;
    const typename CONFIG_T::cube_t cube = square * u;
    return cube;
}

// The bisection on [low, high]: the budget sum_i clip(u_i, 0, 1)^3 stays >= k at `low`, < k at `high`.
template <typename CONFIG_T, class key_T>
inline void soft_topk_cubic_bisect(const key_T keys[CONFIG_T::n_in], typename CONFIG_T::threshold_t &low,
                                   typename CONFIG_T::threshold_t &high) {
    NNET_INLINE
    const typename CONFIG_T::param_t half = 0.5;
    const typename CONFIG_T::sum_t k = CONFIG_T::k;
    NNET_UNROLL
    for (unsigned step = 0; step < CONFIG_T::iterations; step++) {
        const typename CONFIG_T::threshold_t middle = (low + high) * half;
        typename CONFIG_T::sum_t spent = 0;
        NNET_UNROLL
        for (unsigned i = 0; i < CONFIG_T::n_in; i++)
            spent += soft_topk_cube<CONFIG_T>(keys[i], middle);
        if (greater_than(k, spent))
            high = middle;
        else
            low = middle;
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void soft_topk_cubic(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typedef typename CONFIG_T::abs_t key_t;
    typedef typename CONFIG_T::threshold_t threshold_t;
    key_t keys[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(keys)
    unsigned rank[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(rank)
    const typename CONFIG_T::param_t inv_l = CONFIG_T::inv_l;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++)
        keys[i] = data[i] * inv_l;
    topk_ranks<key_t, CONFIG_T>(keys, rank);
    key_t kth = 0, next = 0; // the k-th and (k+1)-th largest keys
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        if (rank[i] == CONFIG_T::k - 1)
            kth = keys[i];
        if (rank[i] == CONFIG_T::k)
            next = keys[i];
    }
    const typename CONFIG_T::param_t half = 0.5;
    if (CONFIG_T::k == CONFIG_T::n_in || !greater_than(1, kth - next)) {
        NNET_UNROLL
        for (unsigned i = 0; i < CONFIG_T::n_in; i++)
            res[i] = rank[i] < CONFIG_T::k ? 1 : 0;
        return;
    }
    threshold_t low = kth - 1, high = next;
    soft_topk_cubic_bisect<CONFIG_T>(keys, low, high);
    const threshold_t centre = (low + high) * half;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++)
        res[i] = soft_topk_cube<CONFIG_T>(keys[i], centre);
}

} // namespace nnet

#endif
