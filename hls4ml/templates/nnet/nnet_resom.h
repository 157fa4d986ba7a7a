// ReSOM layer for io_parallel: two self-organizing maps (inputs x and y) associated by a Hebbian
// lateral matrix H[n_units_x][n_units_y] (docs/resom.md, seed-layers spec A.9).
//
// Arithmetic (bit for bit; hls4ml/model/reference/resom.py), every `v = ...` a write into v's type:
//   dist_n = SOM distance (nnet_som.h), bmu = first smallest; act_n = the SOM's som_activities
//   (exp(-(d_n - d_bmu) / beta) from a table computed in Python). Then `iterations` Jacobi rounds:
//   lateral_x[i] = sum_j H[i][j] * act_y[j] ('all') or H[i][winner_y] ('bmu'); lateral_y likewise with H^T;
//   top = largest lateral value; product: v = act * lateral, s = top; sum: v = top * act + lateral,
//   s = top + top; act' = floor(v / s) at activity_t's LSB (restoring division); top == 0: product
//   gives 0, sum gives floor(act / 2). winner = first largest act'. Global winner: x's unless y's
//   activity is strictly larger. On-chip learning kernels: nnet_som_learn.h.
// Strategy: Latency pipelines the whole layer at II = reuse_factor; Resource folds both distance stages
// (nnet_som.h som_fold), for source 'all' the lateral products (resom_folded_lateral), and the
// normalising divisions (resom_combine) by reuse_factor, the same writes in the same order: the same
// bits for every reuse factor.
#ifndef NNET_RESOM_H_
#define NNET_RESOM_H_

#include "nnet_common.h"
#include "nnet_som.h"

namespace nnet {

enum resom_source { resom_all = 0, resom_bmu = 1 };

enum resom_combine { resom_product = 0, resom_sum = 1 };

enum resom_output { resom_label = 0, resom_index = 1, resom_winners = 2, resom_activities = 3 };

struct resom_config {
    // Required typedefs: accum_x_t, accum_y_t, codebook_x_t, codebook_y_t, lateral_t, lateral_accum_t,
    // activity_t, remainder_t, label_t, table_x_index_t, table_y_index_t, root_x_t, root_y_t.
    static const unsigned n_in = 2;   // x values
    static const unsigned n_in_y = 2; // y values
    static const unsigned n_units_x = 4;
    static const unsigned n_units_y = 4;
    static const unsigned n_out = 1;
    static const unsigned distance = som_squared_euclidean;
    static const unsigned source = resom_all;
    static const unsigned combine = resom_product;
    static const unsigned iterations = 1;
    static const unsigned output = resom_label;
    static const unsigned activity_fraction = 15; // fractional bits of activity_t: quotient bits - 1
    static const unsigned table_size = 1024;
    static const int table_x_shift = 0; // the activity tables' grids (nnet_som.h som_activities)
    static const int table_y_shift = 0;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    static const unsigned strategy = latency; // Resource: distances, lateral products, divisions folded by RF
};

// The SOM view of one map, for the distance, BMU and activity functions of nnet_som.h.
template <class CONFIG_T, bool IsY> struct resom_map;

template <class CONFIG_T> struct resom_map<CONFIG_T, false> {
    typedef typename CONFIG_T::accum_x_t accum_t;
    typedef typename CONFIG_T::codebook_x_t codebook_t;
    typedef typename CONFIG_T::table_x_index_t index_t;
    typedef typename CONFIG_T::root_x_t root_t;
    static const unsigned n_in = CONFIG_T::n_in;
    static const unsigned n_units = CONFIG_T::n_units_x;
    static const unsigned n_out = CONFIG_T::n_units_x;
    static const unsigned strategy = CONFIG_T::strategy;
    static const unsigned reuse_factor = CONFIG_T::reuse_factor;
    static const unsigned distance = CONFIG_T::distance;
    static const unsigned table_size = CONFIG_T::table_size;
    static const int table_shift = CONFIG_T::table_x_shift;
};

template <class CONFIG_T> struct resom_map<CONFIG_T, true> {
    typedef typename CONFIG_T::accum_y_t accum_t;
    typedef typename CONFIG_T::codebook_y_t codebook_t;
    typedef typename CONFIG_T::table_y_index_t index_t;
    typedef typename CONFIG_T::root_y_t root_t;
    static const unsigned n_in = CONFIG_T::n_in_y;
    static const unsigned n_units = CONFIG_T::n_units_y;
    static const unsigned n_out = CONFIG_T::n_units_y;
    static const unsigned strategy = CONFIG_T::strategy;
    static const unsigned reuse_factor = CONFIG_T::reuse_factor;
    static const unsigned distance = CONFIG_T::distance;
    static const unsigned table_size = CONFIG_T::table_size;
    static const int table_shift = CONFIG_T::table_y_shift;
};

// Afferent activities of one map: the SOM's output som_activities, exp(-(d_n - d_bmu) / beta) from
// its table (in activity_t); returns the BMU. The distances: nnet_som.h som_all_distances, unrolled
// (Latency) or folded by reuse_factor (Resource), the same bits.
template <class data_T, class CONFIG_T, class MAP_T>
inline unsigned resom_afferent(const data_T data[MAP_T::n_in], const typename MAP_T::codebook_t codebook[],
                               const typename CONFIG_T::activity_t table[CONFIG_T::table_size],
                               typename CONFIG_T::activity_t act[MAP_T::n_units]) {
    NNET_INLINE
    typename MAP_T::accum_t dist[MAP_T::n_units];
    NNET_ARRAY_PARTITION_COMPLETE(dist)
    som_all_distances<data_T, MAP_T>(data, codebook, dist);
    const unsigned bmu = som_best_unit<MAP_T>(dist);
    som_lookup_output<som_activities>::template write<typename CONFIG_T::activity_t, MAP_T>(dist, bmu, act, table);
    return bmu;
}

// The first index of the largest of n values (a scan moving only on a strictly larger value).
template <class T, unsigned N> inline unsigned resom_first_largest(const T values[N]) {
    NNET_INLINE
    unsigned best = 0;
    NNET_UNROLL
    for (unsigned n = 1; n < N; n++) {
        if (greater_than(values[n], values[best])) {
            best = n;
        }
    }
    return best;
}

// The fold of the Resource lateral products: the n_units_x * n_units_y entries of H in reuse_factor
// blocks of block_factor.
template <class CONFIG_T> struct resom_lateral_fold {
    static const unsigned n_terms = CONFIG_T::n_units_x * CONFIG_T::n_units_y;
    static const unsigned block_factor = ceil_div(n_terms, CONFIG_T::reuse_factor);
};

// Resource, source 'all': H walked row-major, block_factor entries per step, reuse_factor steps at
// II = 1. Entry k = row * n_units_y + column adds H[k] * act_y[column] to the x map's result[row], or
// (Transposed) H[k] * act_x[row] to the y map's result[column]: both maps read H in the same order
// (one cyclic reshape serves both) and every sum keeps its terms in increasing order, so the bits are
// those of the unrolled sums for every reuse factor.
template <class CONFIG_T, unsigned N, unsigned M, bool Transposed>
inline void resom_folded_lateral(const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                                 const typename CONFIG_T::activity_t other[M],
                                 typename CONFIG_T::lateral_accum_t result[N]) {
    NNET_INLINE
    typedef resom_lateral_fold<CONFIG_T> fold;
    constexpr unsigned block_factor = fold::block_factor;
    NNET_UNROLL
    for (unsigned i = 0; i < N; i++) {
        result[i] = 0;
    }
    for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned m = 0; m < block_factor; m++) {
            const unsigned k = step * block_factor + m;
            if (k < fold::n_terms) {
                const unsigned row = k / CONFIG_T::n_units_y;
                const unsigned column = k % CONFIG_T::n_units_y;
                if (Transposed) {
                    result[column] += lateral[k] * other[row];
                } else {
                    result[row] += lateral[k] * other[column];
                }
            }
        }
    }
}

// The lateral input of a map of N units from the other map (M units) through H (transposed when
// `Transposed`: H is stored [n_units_x][n_units_y] and the y map reads its columns). Source 'all'
// under Resource: resom_folded_lateral.
template <class CONFIG_T, unsigned N, unsigned M, bool Transposed>
inline void resom_lateral(const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                          const typename CONFIG_T::activity_t other[M], unsigned other_winner,
                          typename CONFIG_T::lateral_accum_t result[N]) {
    NNET_INLINE
    if (CONFIG_T::source == resom_all && CONFIG_T::strategy == resource) {
        resom_folded_lateral<CONFIG_T, N, M, Transposed>(lateral, other, result);
        return;
    }
    NNET_UNROLL
    for (unsigned i = 0; i < N; i++) {
        if (CONFIG_T::source == resom_bmu) {
            result[i] = lateral[Transposed ? other_winner * N + i : i * M + other_winner];
            continue;
        }
        typename CONFIG_T::lateral_accum_t acc = 0;
        NNET_UNROLL
        for (unsigned j = 0; j < M; j++) {
            acc += lateral[Transposed ? j * N + i : i * M + j] * other[j];
        }
        result[i] = acc;
    }
}

// One unit's new activity from its activity, its lateral input and the map's largest lateral value `top`
// (product or mean, normalised by the exact division).
template <class CONFIG_T>
inline typename CONFIG_T::activity_t resom_combine_unit(const typename CONFIG_T::activity_t &act,
                                                        const typename CONFIG_T::lateral_accum_t &lateral,
                                                        const typename CONFIG_T::lateral_accum_t &top, bool active) {
    NNET_INLINE
    typedef typename CONFIG_T::remainder_t remainder_t;
    remainder_t value = act; // no lateral input: the sum's mean is act / 2
    remainder_t divisor = 2;
    if (active && CONFIG_T::combine == resom_product) {
        value = act * lateral;
        divisor = top;
    } else if (active) {
        value = top * act + lateral;
        divisor = top + top;
    }
    if (active || CONFIG_T::combine == resom_sum) {
        return exact_divide<typename CONFIG_T::activity_t, remainder_t, CONFIG_T::activity_fraction>(value, divisor);
    }
    return 0;
}

// The fold of the Resource combination of a map of N units: block_factor dividers, steps steps.
template <class CONFIG_T, unsigned N> struct resom_combine_fold {
    static const unsigned block_factor = ceil_div(N, CONFIG_T::reuse_factor);
    static const unsigned steps = ceil_div(N, block_factor);
};

// One map's new activities from its activities and its lateral input (product or mean, normalised).
// Latency: N dividers unrolled. Resource: ceil(N / reuse_factor) dividers, one unit each per step at
// II = 1; every unit's division is independent of the others, so the bits are the same.
template <class CONFIG_T, unsigned N>
inline void resom_combine(typename CONFIG_T::activity_t act[N], const typename CONFIG_T::lateral_accum_t lateral[N]) {
    NNET_INLINE
    typedef typename CONFIG_T::lateral_accum_t lateral_accum_t;
    typedef resom_combine_fold<CONFIG_T, N> fold;
    const lateral_accum_t top = lateral[resom_first_largest<lateral_accum_t, N>(lateral)];
    const bool active = is_positive(top);
    if (CONFIG_T::strategy == resource) {
        for (unsigned step = 0; step < fold::steps; step++) {
            NNET_PIPELINE(1)
            NNET_UNROLL
            for (unsigned m = 0; m < fold::block_factor; m++) {
                const unsigned n = step * fold::block_factor + m;
                if (n < N) {
                    act[n] = resom_combine_unit<CONFIG_T>(act[n], lateral[n], top, active);
                }
            }
        }
        return;
    }
    NNET_UNROLL
    for (unsigned n = 0; n < N; n++) {
        act[n] = resom_combine_unit<CONFIG_T>(act[n], lateral[n], top, active);
    }
}

// The layer; resom() below picks its schedule.
template <class data_x_T, class data_y_T, class res_T, typename CONFIG_T>
inline void resom_stages(const data_x_T data_x[CONFIG_T::n_in], const data_y_T data_y[CONFIG_T::n_in_y],
                         res_T res[CONFIG_T::n_out],
                         const typename CONFIG_T::codebook_x_t codebook_x[CONFIG_T::n_units_x * CONFIG_T::n_in],
                         const typename CONFIG_T::codebook_y_t codebook_y[CONFIG_T::n_units_y * CONFIG_T::n_in_y],
                         const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                         const typename CONFIG_T::label_t labels[CONFIG_T::n_units_x + CONFIG_T::n_units_y],
                         const typename CONFIG_T::activity_t table_x[CONFIG_T::table_size],
                         const typename CONFIG_T::activity_t table_y[CONFIG_T::table_size]) {
    NNET_INLINE
    static const unsigned n_x = CONFIG_T::n_units_x;
    static const unsigned n_y = CONFIG_T::n_units_y;
    typename CONFIG_T::activity_t act_x[n_x], act_y[n_y];
    typename CONFIG_T::lateral_accum_t lateral_x[n_x], lateral_y[n_y];
    NNET_ARRAY_PARTITION_COMPLETE(act_x)
    NNET_ARRAY_PARTITION_COMPLETE(act_y)
    NNET_ARRAY_PARTITION_COMPLETE(lateral_x)
    NNET_ARRAY_PARTITION_COMPLETE(lateral_y)
    typedef resom_map<CONFIG_T, false> map_x;
    typedef resom_map<CONFIG_T, true> map_y;
    unsigned winner_x = resom_afferent<data_x_T, CONFIG_T, map_x>(data_x, codebook_x, table_x, act_x);
    unsigned winner_y = resom_afferent<data_y_T, CONFIG_T, map_y>(data_y, codebook_y, table_y, act_y);
    NNET_UNROLL
    for (unsigned round = 0; round < CONFIG_T::iterations; round++) {
        resom_lateral<CONFIG_T, n_x, n_y, false>(lateral, act_y, winner_y, lateral_x);
        resom_lateral<CONFIG_T, n_y, n_x, true>(lateral, act_x, winner_x, lateral_y);
        resom_combine<CONFIG_T, n_x>(act_x, lateral_x);
        resom_combine<CONFIG_T, n_y>(act_y, lateral_y);
        winner_x = resom_first_largest<typename CONFIG_T::activity_t, n_x>(act_x);
        winner_y = resom_first_largest<typename CONFIG_T::activity_t, n_y>(act_y);
    }
    if (CONFIG_T::output == resom_activities) {
        NNET_UNROLL
        for (unsigned n = 0; n < n_x + n_y; n++) {
            res[n] = n < n_x ? act_x[n] : act_y[n - n_x];
        }
        return;
    }
    if (CONFIG_T::output == resom_winners) {
        res[0] = winner_x;
        res[CONFIG_T::n_out - 1] = winner_y;
        return;
    }
    const unsigned winner = greater_than(act_y[winner_y], act_x[winner_x]) ? n_x + winner_y : winner_x;
    if (CONFIG_T::output == resom_index) {
        res[0] = winner;
    } else {
        res[0] = labels[winner];
    }
}

// Latency: the whole layer pipelined at II = reuse_factor.
template <class data_x_T, class data_y_T, class res_T, typename CONFIG_T>
void resom_pipelined(const data_x_T data_x[CONFIG_T::n_in], const data_y_T data_y[CONFIG_T::n_in_y],
                     res_T res[CONFIG_T::n_out],
                     const typename CONFIG_T::codebook_x_t codebook_x[CONFIG_T::n_units_x * CONFIG_T::n_in],
                     const typename CONFIG_T::codebook_y_t codebook_y[CONFIG_T::n_units_y * CONFIG_T::n_in_y],
                     const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                     const typename CONFIG_T::label_t labels[CONFIG_T::n_units_x + CONFIG_T::n_units_y],
                     const typename CONFIG_T::activity_t table_x[CONFIG_T::table_size],
                     const typename CONFIG_T::activity_t table_y[CONFIG_T::table_size]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    resom_stages<data_x_T, data_y_T, res_T, CONFIG_T>(data_x, data_y, res, codebook_x, codebook_y, lateral, labels,
                                                      table_x, table_y);
}

// Resource: not pipelined as a whole (that would unroll the folds); the folds' steps are, at II = 1,
// each reading one wide word of its cyclically reshaped array (codebooks and H in block RAM).
template <class data_x_T, class data_y_T, class res_T, typename CONFIG_T>
void resom_folded(const data_x_T data_x[CONFIG_T::n_in], const data_y_T data_y[CONFIG_T::n_in_y],
                  res_T res[CONFIG_T::n_out],
                  const typename CONFIG_T::codebook_x_t codebook_x[CONFIG_T::n_units_x * CONFIG_T::n_in],
                  const typename CONFIG_T::codebook_y_t codebook_y[CONFIG_T::n_units_y * CONFIG_T::n_in_y],
                  const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                  const typename CONFIG_T::label_t labels[CONFIG_T::n_units_x + CONFIG_T::n_units_y],
                  const typename CONFIG_T::activity_t table_x[CONFIG_T::table_size],
                  const typename CONFIG_T::activity_t table_y[CONFIG_T::table_size]) {
    constexpr unsigned x_factor = som_fold<resom_map<CONFIG_T, false>>::block_factor;
    constexpr unsigned y_factor = som_fold<resom_map<CONFIG_T, true>>::block_factor;
    constexpr unsigned lateral_factor = resom_lateral_fold<CONFIG_T>::block_factor;
    NNET_ARRAY_RESHAPE_CYCLIC(codebook_x, x_factor)
    NNET_ARRAY_RESHAPE_CYCLIC(codebook_y, y_factor)
    NNET_ARRAY_RESHAPE_CYCLIC(lateral, lateral_factor)
    (void)x_factor, (void)y_factor, (void)lateral_factor; // read by the pragmas only (none in C-simulation)
    resom_stages<data_x_T, data_y_T, res_T, CONFIG_T>(data_x, data_y, res, codebook_x, codebook_y, lateral, labels,
                                                      table_x, table_y);
}

template <class data_x_T, class data_y_T, class res_T, typename CONFIG_T>
void resom(const data_x_T data_x[CONFIG_T::n_in], const data_y_T data_y[CONFIG_T::n_in_y], res_T res[CONFIG_T::n_out],
           const typename CONFIG_T::codebook_x_t codebook_x[CONFIG_T::n_units_x * CONFIG_T::n_in],
           const typename CONFIG_T::codebook_y_t codebook_y[CONFIG_T::n_units_y * CONFIG_T::n_in_y],
           const typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
           const typename CONFIG_T::label_t labels[CONFIG_T::n_units_x + CONFIG_T::n_units_y],
           const typename CONFIG_T::activity_t table_x[CONFIG_T::table_size],
           const typename CONFIG_T::activity_t table_y[CONFIG_T::table_size]) {
    NNET_INLINE
    if (CONFIG_T::strategy == resource) {
        resom_folded<data_x_T, data_y_T, res_T, CONFIG_T>(data_x, data_y, res, codebook_x, codebook_y, lateral,
                                                          labels, table_x, table_y);
    } else {
        resom_pipelined<data_x_T, data_y_T, res_T, CONFIG_T>(data_x, data_y, res, codebook_x, codebook_y, lateral,
                                                             labels, table_x, table_y);
    }
}

} // namespace nnet

#endif
