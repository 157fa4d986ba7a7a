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
// Output som_quantized writes the BMU's codebook vector (n_out = n_in values).
//
// Outputs that read a fifth array, `lookup` (the 5-argument nnet::som):
//   som_activities        exp(-(d_n - d_bmu) / beta) per unit from an exp table (table_t[table_size]);
//                         squared_euclidean first takes root_t roots (exact_root), cosine uses
//                         sim_bmu - sim_n; the slot is the gap on the half-step grid (index_t,
//                         table_shift + 1 fractional bits) plus 1, halved; slots past the table give 0
//   som_unit_coordinates  the BMU's two coordinates from a [n_units][2] table (hexagonal maps)
//
// nnet::som_dense (Implementation 'dense', squared_euclidean and cosine, the outputs that depend on
// the BMU only): argmin_n |x - w_n|^2 = argmax_n (w_n . x - |w_n|^2 / 2), |x|^2 being common to all
// units. The scores are a Dense layer (nnet::dense with the config's strategy and reuse factor) over
// the transposed codebook [n_in][n_units] and the exact biases -|w_n|^2 / 2 (0 for cosine); the BMU
// is the first unit with the largest score. With the inferred exact accum_t it equals nnet::som's.
//
// Strategy (Implementation 'distance'): Latency unrolls the n_units x n_in terms and pipelines the
// layer at II = reuse_factor. Resource folds the distance stage (som_fold): reuse_factor steps at
// II = 1, step s taking the block_factor = ceil(n_units * n_in / reuse_factor) consecutive terms
// k = s * block_factor .. of the row-major codebook (one wide word of the cyclically reshaped
// codebook, block RAM). Walking k in order gives every unit its terms in increasing j: the same
// writes in the same order as Latency, so results are bit for bit those of Latency for every reuse
// factor, including those that do not divide n_units * n_in (the last block is partial).
#ifndef NNET_SOM_H_
#define NNET_SOM_H_

#include "nnet_common.h"
#include "nnet_dense.h"
#include "nnet_table.h"

namespace nnet {

enum som_distance { som_squared_euclidean = 0, som_manhattan = 1, som_chebyshev = 2, som_cosine = 3 };

enum som_output {
    som_index = 0,
    som_coordinates = 1,
    som_one_hot = 2,
    som_distances = 3,
    som_label = 4,
    som_activities = 5,
    som_unit_coordinates = 6,
    som_quantized = 7
};

struct som_config {
    // Required typedefs: accum_t, codebook_t, label_t; for som_activities also table_t, index_t,
    // root_t and the statics table_size, table_shift; for som_dense also bias_t.
    static const unsigned n_in = 2;
    static const unsigned n_units = 6;
    static const unsigned n_cols = 3; // grid columns: unit n sits at (n / n_cols, n % n_cols)
    static const unsigned n_out = 1;
    static const unsigned distance = som_squared_euclidean;
    static const unsigned output = som_index;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    static const unsigned strategy = latency; // the distance stage's (som_dense: the Dense strategy of the scores)
    static const unsigned n_zeros = 0;        // som_dense: zero weights (codebook entries)
};

// One term of a distance (a similarity for cosine): acc updated with an input value and its weight.
template <class data_T, typename CONFIG_T>
inline void som_accumulate(typename CONFIG_T::accum_t &acc, const data_T &value,
                           const typename CONFIG_T::codebook_t &weight) {
    NNET_INLINE
    if (CONFIG_T::distance == som_cosine) {
        acc += value * weight;
        return;
    }
    const auto diff = value - weight;
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

// The distance (or, for cosine, the similarity) of the input to one codebook vector.
template <class data_T, typename CONFIG_T>
inline typename CONFIG_T::accum_t som_distance_to(const data_T data[CONFIG_T::n_in],
                                                  const typename CONFIG_T::codebook_t codebook[],
                                                  unsigned unit) {
    NNET_INLINE
    typename CONFIG_T::accum_t acc = 0;
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_in; j++) {
        som_accumulate<data_T, CONFIG_T>(acc, data[j], codebook[unit * CONFIG_T::n_in + j]);
    }
    return acc;
}

// The fold of the Resource distance stage: n_terms terms in reuse_factor blocks of block_factor.
template <class CONFIG_T> struct som_fold {
    static const unsigned n_terms = CONFIG_T::n_units * CONFIG_T::n_in;
    static const unsigned block_factor = ceil_div(n_terms, CONFIG_T::reuse_factor);
    static const bool blocks_are_full = n_terms % CONFIG_T::reuse_factor == 0;
};

// Resource: the distances of every unit, block_factor terms per step, reuse_factor steps at II = 1
// (the header comment: same writes, same order as the unrolled form). The caller that holds the codebook
// argument reshapes it cyclically by block_factor (NNET_ARRAY_RESHAPE_CYCLIC), as dense_resource does.
template <class data_T, typename CONFIG_T>
inline void som_folded_distances(const data_T data[CONFIG_T::n_in], const typename CONFIG_T::codebook_t codebook[],
                                 typename CONFIG_T::accum_t dist[CONFIG_T::n_units]) {
    NNET_INLINE
    typedef som_fold<CONFIG_T> fold;
    constexpr unsigned block_factor = fold::block_factor;
    NNET_UNROLL
    for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
        dist[n] = 0;
    }
    for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned m = 0; m < block_factor; m++) {
            const unsigned k = step * block_factor + m;
            if (fold::blocks_are_full || k < fold::n_terms) {
                som_accumulate<data_T, CONFIG_T>(dist[k / CONFIG_T::n_in], data[k % CONFIG_T::n_in], codebook[k]);
            }
        }
    }
}

// The distances (similarities) of the input to every unit, unrolled (Latency) or folded (Resource).
template <class data_T, typename CONFIG_T>
inline void som_all_distances(const data_T data[CONFIG_T::n_in], const typename CONFIG_T::codebook_t codebook[],
                              typename CONFIG_T::accum_t dist[CONFIG_T::n_units]) {
    NNET_INLINE
    if (CONFIG_T::strategy == resource) {
        som_folded_distances<data_T, CONFIG_T>(data, codebook, dist);
        return;
    }
    NNET_UNROLL
    for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
        dist[n] = som_distance_to<data_T, CONFIG_T>(data, codebook, n);
    }
}

// The first of n values that is the smallest (Largest: the largest): a scan that moves only on a
// strictly better value, so ties go to the lowest index.
template <class value_T, unsigned N, bool Largest> inline unsigned som_first_best(const value_T values[N]) {
    NNET_INLINE
    unsigned best = 0;
    value_T best_value = values[0];
    NNET_UNROLL
    for (unsigned n = 1; n < N; n++) {
        const bool better = Largest ? greater_than(values[n], best_value) : greater_than(best_value, values[n]);
        if (better) {
            best = n;
            best_value = values[n];
        }
    }
    return best;
}

// The first unit with the smallest distance (the largest similarity for cosine).
template <typename CONFIG_T> inline unsigned som_best_unit(const typename CONFIG_T::accum_t dist[CONFIG_T::n_units]) {
    NNET_INLINE
    return som_first_best<typename CONFIG_T::accum_t, CONFIG_T::n_units, CONFIG_T::distance == som_cosine>(dist);
}

// The outputs that depend on the BMU only (index, coordinates, label, quantized, one-hot). Value j of
// unit n sits at codebook[n * UnitStride + j * ValueStride]: [n_units][n_in] for nnet::som,
// [n_in][n_units] (the dense weights) for nnet::som_dense.
template <class res_T, typename CONFIG_T, unsigned UnitStride, unsigned ValueStride>
inline void som_bmu_output(unsigned best, res_T res[CONFIG_T::n_out], const typename CONFIG_T::codebook_t codebook[],
                           const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    NNET_INLINE
    if (CONFIG_T::output == som_index) {
        res[0] = best;
    } else if (CONFIG_T::output == som_coordinates) {
        res[0] = best / CONFIG_T::n_cols;
        res[CONFIG_T::n_out - 1] = best % CONFIG_T::n_cols;
    } else if (CONFIG_T::output == som_label) {
        res[0] = labels[best];
    } else if (CONFIG_T::output == som_quantized) {
        NNET_UNROLL
        for (unsigned j = 0; j < CONFIG_T::n_out; j++) {
            res[j] = codebook[best * UnitStride + j * ValueStride];
        }
    } else {
        NNET_UNROLL
        for (unsigned n = 0; n < CONFIG_T::n_out; n++) {
            res[n] = n == best ? 1 : 0;
        }
    }
}

// The layer without a lookup array: the distances, then the distances or the BMU's output.
template <class data_T, class res_T, typename CONFIG_T>
inline void som_stages(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                       const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                       const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    NNET_INLINE
    typename CONFIG_T::accum_t dist[CONFIG_T::n_units];
    NNET_ARRAY_PARTITION_COMPLETE(dist)
    som_all_distances<data_T, CONFIG_T>(data, codebook, dist);
    if (CONFIG_T::output == som_distances) {
        NNET_UNROLL
        for (unsigned n = 0; n < CONFIG_T::n_out; n++) {
            res[n] = dist[n];
        }
        return;
    }
    const unsigned best = som_best_unit<CONFIG_T>(dist);
    som_bmu_output<res_T, CONFIG_T, CONFIG_T::n_in, 1>(best, res, codebook, labels);
}

// Latency: the whole layer pipelined at II = reuse_factor.
template <class data_T, class res_T, typename CONFIG_T>
void som_pipelined(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                   const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                   const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    som_stages<data_T, res_T, CONFIG_T>(data, res, codebook, labels);
}

// Resource: not pipelined as a whole (a pipeline would unroll the fold); the fold's steps are.
template <class data_T, class res_T, typename CONFIG_T>
void som_folded(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    constexpr unsigned block_factor = som_fold<CONFIG_T>::block_factor;
    NNET_ARRAY_RESHAPE_CYCLIC(codebook, block_factor)
    (void)block_factor; // read by the pragma only (none in C-simulation)
    som_stages<data_T, res_T, CONFIG_T>(data, res, codebook, labels);
}

template <class data_T, class res_T, typename CONFIG_T>
void som(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    NNET_INLINE
    if (CONFIG_T::strategy == resource) {
        som_folded<data_T, res_T, CONFIG_T>(data, res, codebook, labels);
    } else {
        som_pipelined<data_T, res_T, CONFIG_T>(data, res, codebook, labels);
    }
}

// The table slot of a gap >= 0: gap / 2^-table_shift rounded half up.
template <typename CONFIG_T, class gap_T> inline unsigned som_activity_slot(const gap_T &gap) {
    NNET_INLINE
    const int halves = table_slot<typename CONFIG_T::index_t, CONFIG_T::table_shift + 1, 0>(gap);
    return unsigned(halves + 1) >> 1;
}

// exp(-slot * step / beta) from the table; 0 past its end.
template <typename CONFIG_T, class res_T, class table_T>
inline void som_activity(unsigned slot, const table_T table[], res_T &res) {
    NNET_INLINE
    if (slot < CONFIG_T::table_size) {
        res = table[slot];
    } else {
        res = 0;
    }
}

// The outputs that read the lookup array; the general template is never used.
template <unsigned Output> struct som_lookup_output;

// Resource, squared Euclidean activities: the n_units roots in ceil(n_units / block) steps at II = 1,
// block = ceil(n_units / reuse_factor) roots each (every root is exact: the order changes no bit).
template <typename CONFIG_T>
inline void som_folded_roots(const typename CONFIG_T::accum_t dist[CONFIG_T::n_units],
                             typename CONFIG_T::root_t roots[CONFIG_T::n_units]) {
    NNET_INLINE
    constexpr unsigned block = ceil_div(CONFIG_T::n_units, CONFIG_T::reuse_factor);
    for (unsigned step = 0; step < ceil_div(CONFIG_T::n_units, block); step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned m = 0; m < block; m++) {
            const unsigned n = step * block + m;
            if (n < CONFIG_T::n_units) {
                roots[n] = exact_root<typename CONFIG_T::root_t>(dist[n]);
            }
        }
    }
}

template <> struct som_lookup_output<som_activities> {
    // Resource folds the roots (som_folded_roots); the best unit's root is then read, not recomputed.
    template <class res_T, typename CONFIG_T, class table_T>
    static void write(const typename CONFIG_T::accum_t dist[CONFIG_T::n_units], unsigned best,
                      res_T res[CONFIG_T::n_out], const table_T table[]) {
        NNET_INLINE
        typedef typename CONFIG_T::root_t root_t;
        const bool folded = CONFIG_T::strategy == resource && CONFIG_T::distance == som_squared_euclidean;
        root_t roots[CONFIG_T::n_units];
        NNET_ARRAY_PARTITION_COMPLETE(roots)
        if (folded) {
            som_folded_roots<CONFIG_T>(dist, roots);
        }
        const root_t best_root = folded ? roots[best] : exact_root<root_t>(dist[best]);
        NNET_UNROLL
        for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
            unsigned slot;
            if (CONFIG_T::distance == som_squared_euclidean) {
                slot = som_activity_slot<CONFIG_T>((folded ? roots[n] : exact_root<root_t>(dist[n])) - best_root);
            } else if (CONFIG_T::distance == som_cosine) {
                slot = som_activity_slot<CONFIG_T>(dist[best] - dist[n]);
            } else {
                slot = som_activity_slot<CONFIG_T>(dist[n] - dist[best]);
            }
            som_activity<CONFIG_T>(slot, table, res[n]);
        }
    }
};

template <> struct som_lookup_output<som_unit_coordinates> {
    template <class res_T, typename CONFIG_T, class table_T>
    static void write(const typename CONFIG_T::accum_t /* dist */[CONFIG_T::n_units], unsigned best,
                      res_T res[CONFIG_T::n_out], const table_T coordinates[]) {
        NNET_INLINE
        res[0] = coordinates[2 * best];
        res[1] = coordinates[2 * best + 1];
    }
};

// The layer with a lookup array (outputs som_activities and som_unit_coordinates).
template <class data_T, class res_T, typename CONFIG_T, class table_T>
inline void som_lookup_stages(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                       const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                       const table_T lookup[]) {
    NNET_INLINE
    typename CONFIG_T::accum_t dist[CONFIG_T::n_units];
    NNET_ARRAY_PARTITION_COMPLETE(dist)
    som_all_distances<data_T, CONFIG_T>(data, codebook, dist);
    const unsigned best = som_best_unit<CONFIG_T>(dist);
    som_lookup_output<CONFIG_T::output>::template write<res_T, CONFIG_T>(dist, best, res, lookup);
}

template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som_lookup_pipelined(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                   const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                   const table_T lookup[]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    som_lookup_stages<data_T, res_T, CONFIG_T>(data, res, codebook, lookup);
}

template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som_lookup_folded(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
                const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                const table_T lookup[]) {
    constexpr unsigned block_factor = som_fold<CONFIG_T>::block_factor;
    NNET_ARRAY_RESHAPE_CYCLIC(codebook, block_factor)
    (void)block_factor; // read by the pragma only (none in C-simulation)
    som_lookup_stages<data_T, res_T, CONFIG_T>(data, res, codebook, lookup);
}

// The SOM with a lookup array; Latency or Resource as the 4-argument nnet::som.
template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
         const typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
         const typename CONFIG_T::label_t /* labels: unused */[CONFIG_T::n_units], const table_T lookup[]) {
    NNET_INLINE
    if (CONFIG_T::strategy == resource) {
        som_lookup_folded<data_T, res_T, CONFIG_T>(data, res, codebook, lookup);
    } else {
        som_lookup_pipelined<data_T, res_T, CONFIG_T>(data, res, codebook, lookup);
    }
}

// The score stage of som_dense seen as a Dense layer: n_in inputs, n_units outputs, the SOM's strategy,
// reuse factor and zero count, the codebook type as weight_t.
template <class CONFIG_T> struct som_score_config : dense_config {
    static const unsigned n_in = CONFIG_T::n_in;
    static const unsigned n_out = CONFIG_T::n_units;
    static const unsigned io_type = io_parallel;
    static const unsigned strategy = CONFIG_T::strategy;
    static const unsigned reuse_factor = CONFIG_T::reuse_factor;
    static const unsigned n_zeros = CONFIG_T::n_zeros;
    typedef typename CONFIG_T::accum_t accum_t;
    typedef typename CONFIG_T::codebook_t weight_t;
    typedef typename CONFIG_T::bias_t bias_t;
};

// The scores w_n . x - |w_n|^2 / 2 of every unit (the Dense kernel's schedule) and the first best one.
template <class data_T, typename CONFIG_T>
inline unsigned som_dense_best(const data_T data[CONFIG_T::n_in],
                               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
                               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
                               typename CONFIG_T::accum_t score[CONFIG_T::n_units]) {
    NNET_INLINE
    dense<data_T, typename CONFIG_T::accum_t, som_score_config<CONFIG_T>>(data, score, weights, biases);
    return som_first_best<typename CONFIG_T::accum_t, CONFIG_T::n_units, true>(score);
}

// The SOM as a Dense layer plus an argmax; weights: the codebook transposed, [n_in][n_units]. Not
// pipelined as a whole: the scores keep the Dense strategy's schedule (Latency: II = reuse_factor;
// Resource: reuse_factor steps at II = 1).
template <class data_T, class res_T, typename CONFIG_T>
void som_dense(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
               const typename CONFIG_T::label_t labels[CONFIG_T::n_units]) {
    typename CONFIG_T::accum_t score[CONFIG_T::n_units];
    NNET_ARRAY_PARTITION_COMPLETE(score)
    const unsigned best = som_dense_best<data_T, CONFIG_T>(data, weights, biases, score);
    som_bmu_output<res_T, CONFIG_T, 1, CONFIG_T::n_units>(best, res, weights, labels);
}

// som_dense with a lookup array: the unit coordinates of a hexagonal map (som_unit_coordinates).
template <class data_T, class res_T, typename CONFIG_T, class table_T>
void som_dense(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_out],
               const typename CONFIG_T::codebook_t weights[CONFIG_T::n_in * CONFIG_T::n_units],
               const typename CONFIG_T::bias_t biases[CONFIG_T::n_units],
               const typename CONFIG_T::label_t /* labels: unused */[CONFIG_T::n_units], const table_T lookup[]) {
    typename CONFIG_T::accum_t score[CONFIG_T::n_units];
    NNET_ARRAY_PARTITION_COMPLETE(score)
    const unsigned best = som_dense_best<data_T, CONFIG_T>(data, weights, biases, score);
    som_lookup_output<CONFIG_T::output>::template write<res_T, CONFIG_T>(score, best, res, lookup);
}

} // namespace nnet

#endif
