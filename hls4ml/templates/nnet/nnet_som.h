// Self-organizing map (SOM) layer for io_parallel: distances of the input to every codebook vector,
// the best-matching unit (BMU), and one output derived from it (docs/som.md).
//
// Arithmetic (bit for bit; hls4ml/model/reference/som.py), diff_j = data_j - w[n * n_in + j] exact,
// every write into accum_t with its rounding and overflow modes (the inferred accum_t is exact):
//   squared_euclidean  acc += diff_j * diff_j
//   manhattan          acc -= diff_j if diff_j < 0, else acc += diff_j
//   chebyshev          acc = diff_j if diff_j > acc; then acc = -diff_j if -diff_j > acc
//   cosine             acc += data_j * w[n * n_in + j]   (pre-normalised codebook: a similarity)
// The BMU scan starts at unit 0 and moves only to a strictly closer unit, so ties go to the lowest
// index (numpy argmin, MiniSom winner()). The codebook is row-major [n_units][n_in] over the grid.
#ifndef NNET_SOM_H_
#define NNET_SOM_H_

#include "nnet_common.h"

namespace nnet {

enum som_distance { som_squared_euclidean = 0, som_manhattan = 1, som_chebyshev = 2, som_cosine = 3 };

enum som_output { som_index = 0, som_coordinates = 1, som_one_hot = 2, som_distances = 3, som_label = 4 };

struct som_config {
    // Required typedefs: accum_t, codebook_t, label_t.
    static const unsigned n_in = 2;
    static const unsigned n_units = 6;
    static const unsigned n_cols = 3; // grid columns: unit n sits at (n / n_cols, n % n_cols)
    static const unsigned n_out = 1;
    static const unsigned distance = som_squared_euclidean;
    static const unsigned output = som_index;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// The distance (or, for cosine, the similarity) of the input to one codebook vector.
template <class data_T, typename CONFIG_T>
inline typename CONFIG_T::accum_t som_distance_to(const data_T data[CONFIG_T::n_in],
                                                  const typename CONFIG_T::codebook_t codebook[],
                                                  unsigned unit) {
    NNET_INLINE
    typename CONFIG_T::accum_t acc = 0;
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_in; j++) {
        const typename CONFIG_T::codebook_t weight = codebook[unit * CONFIG_T::n_in + j];
        if (CONFIG_T::distance == som_cosine) {
            acc += data[j] * weight;
            continue;
        }
        const auto diff = data[j] - weight;
        if (CONFIG_T::distance == som_squared_euclidean) {
            acc += diff * diff;
        } else if (CONFIG_T::distance == som_manhattan) {
            if (is_negative(diff)) {
                acc -= diff;
            } else {
                acc += diff;
            }
        } else {
            if (greater_than(diff, acc)) {
                acc = diff;
            }
            if (greater_than(-diff, acc)) {
                acc = -diff;
            }
        }
    }
    return acc;
}

// The first unit with the smallest distance (the largest similarity for cosine).
template <typename CONFIG_T> inline unsigned som_best_unit(const typename CONFIG_T::accum_t dist[CONFIG_T::n_units]) {
    NNET_INLINE
    unsigned best = 0;
    typename CONFIG_T::accum_t best_value = dist[0];
    NNET_UNROLL
    for (unsigned n = 1; n < CONFIG_T::n_units; n++) {
        const bool better =
            CONFIG_T::distance == som_cosine ? greater_than(dist[n], best_value) : greater_than(best_value, dist[n]);
        if (better) {
            best = n;
            best_value = dist[n];
        }
    }
    return best;
}

template <class data_T, class res_T, typename CONFIG_T>
void som(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    typename CONFIG_T::accum_t dist[CONFIG_T::n_units];
    NNET_ARRAY_PARTITION_COMPLETE(dist)
    NNET_UNROLL
    for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
        dist[n] = som_distance_to<data_T, CONFIG_T>(data, codebook, n);
    }
    if (CONFIG_T::output == som_distances) {
        NNET_UNROLL
        for (unsigned n = 0; n < CONFIG_T::n_out; n++) {
            res[n] = dist[n];
        }
        return;
    }
    const unsigned best = som_best_unit<CONFIG_T>(dist);
    if (CONFIG_T::output == som_index) {
        res[0] = best;
    } else if (CONFIG_T::output == som_coordinates) {
        res[0] = best / CONFIG_T::n_cols;
        res[CONFIG_T::n_out - 1] = best % CONFIG_T::n_cols;
    } else if (CONFIG_T::output == som_label) {
        res[0] = labels[best];
    } else {
        NNET_UNROLL
        for (unsigned n = 0; n < CONFIG_T::n_out; n++) {
            res[n] = n == best ? 1 : 0;
        }
    }
}

} // namespace nnet

#endif
