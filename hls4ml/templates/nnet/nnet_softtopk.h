// Sparse soft top-k, p = 2, io_parallel (docs/topk.md, seed-layers.md B.2, B.3, B.6).
//
//   mask       y_i = clip((x_i - t) / l, 0, 1) with t such that sum_i y_i = k
//   magnitude  out_i = sign(x_i) min(|x_i|, (1 + l) / l max(0, |x_i| - theta)) with theta such that
//              sum_i clip((|x_i| - theta) / (l theta), 0, 1) = k
//
// l is the firmware's l (hls4ml/model/reference/soft_topk.py: the layer's l, or l rounded finely when it is not
// a power of two); the constants derived from it are doubles converted into param_t. The search, per vector:
//   1. all-pairs ranks (nnet_topk.h) give the k-th and (k+1)-th largest key (x, or |x| for magnitude);
//   2. fast path: if the gap is wide (x_(k) - x_(k+1) >= l, or |x|_(k) >= (1 + l) |x|_(k+1)) or
//      k = n_in, the output is the hard top-k (exact, B.4);
//   3. else `iterations` bisection steps on the bracket [x_(k) - l, x_(k+1)] (theta: [|x|_(k) / (1 + l),
//      |x|_(k+1)]), each one a sum of n_in clipped differences compared with k l (k l theta): no division;
//   4. polish: from the middle of the last bracket, the saturated count a and the middle set M give the
//      closed form t = (sum_M x_i - l (k - a)) / m (theta = sum_M |x_i| / (m + l (k - a))); the
//      division is a product with a reciprocal table entry; the result is clamped into the bracket;
//   5. the outputs from t (theta): one write into res_T each; the magnitude form writes |out| into magnitude_t
//      and then gives it the sign of x, so that out(-x) = -out(x) bit for bit.
// Writes: bounds and midpoints into threshold_t (exact), sums into sum_t (exact), the polished threshold
// into threshold_t (the one rounding of the search), the outputs into res_T. The types come from
// hls4ml/model/reference/soft_topk.py, which is the bit-exact twin of this file.
#ifndef NNET_SOFTTOPK_H_
#define NNET_SOFTTOPK_H_

#include "nnet_common.h"
#include "nnet_topk.h"

namespace nnet {

enum soft_topk_mode { soft_topk_mask = 0, soft_topk_magnitude = 1 };

struct soft_topk_config {
    // Required typedefs: threshold_t, sum_t, param_t, recip_t, abs_t; optional: magnitude_t (below).
    static const unsigned n_in = 8;
    static const unsigned k = 2;
    static const unsigned mode = soft_topk_mask;
    static const unsigned iterations = 12;
    static const bool magnitude = false; // the ranks are taken of the keys this kernel computes
    static const bool largest = true;
    static constexpr double l = 0.25;
    static constexpr double inv_l = 4;
    static constexpr double k_l = 0.5; // k l
    static constexpr double one_plus_l = 1.25;
    static constexpr double ramp = 5; // (1 + l) / l
    static constexpr double inv_one_plus_l = 0.8; // 1 / (1 + l), rounded down into param_t
    static const unsigned recip_size = (n_in + 1) * (k + 1); // entries of the reciprocal table
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// magnitude_t: the type |out| is written into before its sign (the result type's unsigned twin); a config
// without it (a mask-mode config) uses res_T.
template <class> struct soft_topk_void { typedef void type; };
template <class res_T, typename CONFIG_T, class = void> struct soft_topk_magnitude_type { typedef res_T type; };
template <class res_T, typename CONFIG_T>
struct soft_topk_magnitude_type<res_T, CONFIG_T, typename soft_topk_void<typename CONFIG_T::magnitude_t>::type> {
    typedef typename CONFIG_T::magnitude_t type;
};

// sign(x) |out|: the magnitude rounded once into magnitude_t, then negated exactly for a negative x.
template <class data_T, class res_T, typename CONFIG_T, class magnitude_T>
inline res_T soft_topk_signed(const data_T &x, const magnitude_T &magnitude) {
    NNET_INLINE
    const typename soft_topk_magnitude_type<res_T, CONFIG_T>::type positive = magnitude;
    if (is_negative(x))
        return -positive;
    return positive;
}

// The keys the ranks and the search use: x itself (mask) or |x| (magnitude), exactly, in abs_t.
template <class data_T, typename CONFIG_T>
inline void soft_topk_keys(const data_T data[CONFIG_T::n_in], typename CONFIG_T::abs_t keys[CONFIG_T::n_in]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        if (CONFIG_T::mode == soft_topk_magnitude && is_negative(data[i]))
            keys[i] = -data[i];
        else
            keys[i] = data[i];
    }
}

// How much of the budget a threshold spends: sum_i clip(key_i - t, 0, width) (width = l, or l t).
template <typename CONFIG_T, class key_T, class width_T>
inline typename CONFIG_T::sum_t soft_topk_spent(const key_T keys[CONFIG_T::n_in],
                                                const typename CONFIG_T::threshold_t &t, const width_T &width) {
    NNET_INLINE
    typename CONFIG_T::sum_t spent = 0;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        const auto difference = keys[i] - t;
        if (!is_positive(difference))
            continue;
        if (greater_than(width, difference))
            spent += difference;
        else
            spent += width;
    }
    return spent;
}

// The closed form of the threshold on the segment holding `centre`, clamped into [low, high].
template <typename CONFIG_T, class key_T>
inline typename CONFIG_T::threshold_t
soft_topk_polish(const key_T keys[CONFIG_T::n_in], const typename CONFIG_T::threshold_t &low,
                 const typename CONFIG_T::threshold_t &high, const typename CONFIG_T::threshold_t &centre,
                 const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    NNET_INLINE
    typedef typename CONFIG_T::threshold_t threshold_t;
    typedef typename CONFIG_T::sum_t sum_t;
    const typename CONFIG_T::param_t l = CONFIG_T::l;
    const bool magnitude = CONFIG_T::mode == soft_topk_magnitude;
    sum_t width = l;
    if (magnitude)
        width = l * centre;
    unsigned saturated = 0, middle = 0;
    sum_t middle_sum = 0, deficit = CONFIG_T::k_l; // deficit = l (k - a)
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        const auto difference = keys[i] - centre;
        if (!greater_than(width, difference)) {
            saturated++;
            deficit -= l;
        } else if (is_positive(difference)) {
            middle++;
            middle_sum += keys[i];
        }
    }
    if (middle == 0 || saturated > CONFIG_T::k)
        return centre;
    const unsigned missing = CONFIG_T::k - saturated;
    threshold_t t;
    if (magnitude) {
        t = middle_sum * recip[middle * (CONFIG_T::k + 1) + missing];
    } else {
        const sum_t numerator = middle_sum - deficit;
        t = numerator * recip[middle * (CONFIG_T::k + 1)];
    }
    if (greater_than(t, high))
        return high;
    if (greater_than(low, t))
        return low;
    return t;
}

// The bisection on [low, high]: the threshold keeps sum_i clip(...) >= k l at `low`, <= at `high`.
template <typename CONFIG_T, class key_T>
inline void soft_topk_bisect(const key_T keys[CONFIG_T::n_in], typename CONFIG_T::threshold_t &low,
                             typename CONFIG_T::threshold_t &high) {
    NNET_INLINE
    const typename CONFIG_T::param_t l = CONFIG_T::l, k_l = CONFIG_T::k_l, half = 0.5;
    NNET_UNROLL
    for (unsigned step = 0; step < CONFIG_T::iterations; step++) {
        const typename CONFIG_T::threshold_t middle = (low + high) * half;
        bool enough;
        if (CONFIG_T::mode == soft_topk_magnitude) {
            const typename CONFIG_T::sum_t width = l * middle, budget = k_l * middle;
            enough = !greater_than(budget, soft_topk_spent<CONFIG_T>(keys, middle, width));
        } else {
            enough = !greater_than(k_l, soft_topk_spent<CONFIG_T>(keys, middle, l));
        }
        if (enough)
            low = middle;
        else
            high = middle;
    }
}

// The hard top-k of the fast path: 1 / 0 (mask), x / 0 (magnitude).
template <class data_T, class res_T, typename CONFIG_T>
inline void soft_topk_hard(const data_T data[CONFIG_T::n_in], const typename CONFIG_T::abs_t keys[CONFIG_T::n_in],
                           res_T res[CONFIG_T::n_in], const unsigned rank[CONFIG_T::n_in]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        const bool selected = rank[i] < CONFIG_T::k;
        if (!selected)
            res[i] = 0;
        else if (CONFIG_T::mode == soft_topk_magnitude)
            res[i] = soft_topk_signed<data_T, res_T, CONFIG_T>(data[i], keys[i]);
        else
            res[i] = 1;
    }
}

// The outputs from the final threshold.
template <class data_T, class res_T, typename CONFIG_T>
inline void soft_topk_outputs(const data_T data[CONFIG_T::n_in], const typename CONFIG_T::abs_t keys[CONFIG_T::n_in],
                              res_T res[CONFIG_T::n_in], const typename CONFIG_T::threshold_t &t) {
    NNET_INLINE
    const typename CONFIG_T::param_t l = CONFIG_T::l, inv_l = CONFIG_T::inv_l, ramp = CONFIG_T::ramp;
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        const auto difference = keys[i] - t;
        if (!is_positive(difference)) {
            res[i] = 0;
        } else if (CONFIG_T::mode == soft_topk_magnitude) {
            const auto ramped = difference * ramp;
            if (!greater_than(keys[i], ramped))
                res[i] = soft_topk_signed<data_T, res_T, CONFIG_T>(data[i], keys[i]);
            else
                res[i] = soft_topk_signed<data_T, res_T, CONFIG_T>(data[i], ramped);
        } else if (!greater_than(l, difference)) {
            res[i] = 1;
        } else {
            res[i] = difference * inv_l;
        }
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void soft_topk(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
               const typename CONFIG_T::recip_t recip[CONFIG_T::recip_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typedef typename CONFIG_T::abs_t key_t;
    typedef typename CONFIG_T::threshold_t threshold_t;
    key_t keys[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(keys)
    unsigned rank[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(rank)
    soft_topk_keys<data_T, CONFIG_T>(data, keys);
    topk_ranks<key_t, CONFIG_T>(keys, rank);
    if (CONFIG_T::k == CONFIG_T::n_in) {
        soft_topk_hard<data_T, res_T, CONFIG_T>(data, keys, res, rank);
        return;
    }
    key_t kth = 0, next = 0; // the k-th and (k+1)-th largest keys
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        if (rank[i] == CONFIG_T::k - 1)
            kth = keys[i];
        if (rank[i] == CONFIG_T::k)
            next = keys[i];
    }
    const typename CONFIG_T::param_t l = CONFIG_T::l, one_plus_l = CONFIG_T::one_plus_l, half = 0.5;
    threshold_t low, high = next;
    if (CONFIG_T::mode == soft_topk_magnitude) {
        if (!greater_than(next * one_plus_l, kth)) {
            soft_topk_hard<data_T, res_T, CONFIG_T>(data, keys, res, rank);
            return;
        }
        const typename CONFIG_T::param_t inv_one_plus_l = CONFIG_T::inv_one_plus_l;
        low = kth * inv_one_plus_l;
    } else {
        if (!greater_than(l, kth - next)) {
            soft_topk_hard<data_T, res_T, CONFIG_T>(data, keys, res, rank);
            return;
        }
        low = kth - l;
    }
    soft_topk_bisect<CONFIG_T>(keys, low, high);
    const threshold_t centre = (low + high) * half;
    const threshold_t t = soft_topk_polish<CONFIG_T>(keys, low, high, centre, recip);
    soft_topk_outputs<data_T, res_T, CONFIG_T>(data, keys, res, t);
}

} // namespace nnet

#endif
