// Hard top-k of a vector of n_in values, io_parallel (docs/topk.md).
//
//   values   res[s] = the (s+1)-th largest value, s < k
//   indices  res[s] = its index
//   mask     res[i] = 1 if value i is among the k largest, else 0
//   masked   res[i] = value i if it is among the k largest, else 0
//
// With magnitude, values are ranked by |x| (the outputs keep the signed values); with largest = false
// the k smallest values (or |values|) are selected, smallest first. Ties: the lower index wins. Every value is ranked by all-pairs comparison: one comparator per pair (n_in (n_in-1)/2)
// decides which of the two beats the other, rank_i counts the values beating value i, and value i is
// selected when rank_i < k. The depth is one comparison plus a counter, whatever k is; the ranks are
// a permutation, so output slot s takes the one value of rank s. Writes: the selected value, the
// index (an unsigned int) or 1 / 0, each into res_T. Comparisons are exact (nnet_common.h).
#ifndef NNET_TOPK_H_
#define NNET_TOPK_H_

#include "nnet_common.h"

namespace nnet {

enum topk_output { topk_values = 0, topk_indices = 1, topk_mask = 2, topk_masked = 3 };

struct topk_config {
    static const unsigned n_in = 10;
    static const unsigned k = 1;
    static const unsigned n_out = 1; // k for values and indices, n_in for mask and masked
    static const unsigned output = topk_values;
    static const bool magnitude = false; // rank by |x|
    static const bool largest = true;    // false: the k smallest
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// |a| > |b|, exact without forming |a| (negating the most negative value would need a wider type).
template <class T> inline bool magnitude_greater(const T &a, const T &b) {
    const bool a_negative = is_negative(a), b_negative = is_negative(b);
    if (!a_negative && !b_negative)
        return greater_than(a, b);
    if (a_negative && b_negative)
        return greater_than(b, a);
    if (!a_negative)
        return is_positive(a + b); // a >= 0 > b: a > -b
    return is_negative(a + b);     // a < 0 <= b: -a > b
}

// a ranks before b (strictly): greater (largest) or smaller (smallest), by value or by magnitude.
template <typename CONFIG_T, class T> inline bool topk_better(const T &a, const T &b) {
    const T &high = CONFIG_T::largest ? a : b, &low = CONFIG_T::largest ? b : a;
    return CONFIG_T::magnitude ? magnitude_greater(high, low) : greater_than(high, low);
}

// rank[i] = how many values beat value i: a higher value, or an equal one at a lower index.
template <class data_T, typename CONFIG_T>
inline void topk_ranks(const data_T data[CONFIG_T::n_in], unsigned rank[CONFIG_T::n_in]) {
    NNET_INLINE
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        rank[i] = 0;
    }
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        NNET_UNROLL
        for (unsigned j = i + 1; j < CONFIG_T::n_in; j++) {
            if (topk_better<CONFIG_T>(data[j], data[i]))
                rank[i]++;
            else // not strictly better: the lower index i wins the tie
                rank[j]++;
        }
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void topk(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    unsigned rank[CONFIG_T::n_in];
    NNET_ARRAY_PARTITION_COMPLETE(rank)
    topk_ranks<data_T, CONFIG_T>(data, rank);
    if (CONFIG_T::output == topk_mask || CONFIG_T::output == topk_masked) {
        NNET_UNROLL
        for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
            const bool selected = rank[i] < CONFIG_T::k;
            if (CONFIG_T::output == topk_mask)
                res[i] = selected ? 1 : 0;
            else if (selected)
                res[i] = data[i];
            else
                res[i] = 0;
        }
        return;
    }
    NNET_UNROLL
    for (unsigned s = 0; s < CONFIG_T::k; s++) {
        NNET_UNROLL
        for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
            if (rank[i] != s)
                continue;
            if (CONFIG_T::output == topk_indices)
                res[s] = i;
            else
                res[s] = data[i];
        }
    }
}

} // namespace nnet

#endif
