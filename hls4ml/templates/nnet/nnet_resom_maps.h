// ReSOM of M >= 2 self-organizing maps (inputs 0 .. M-1), one Hebbian matrix per pair of maps
// (docs/resom.md "More than two maps"; hls4ml/model/reference/resom_maps.py is its bit-exact twin).
//
// Every map is the two-map ReSOM's (nnet_resom.h): resom_afferent for its activities, resom_combine for
// its normalised exchange, resom_first_largest for its winner. The pair matrices come as one symmetric
// block matrix L[n_units][n_units] (block (i, j) = H_ij, block (j, i) its transpose, diagonal blocks 0),
// computed in Python, so the lateral input of every unit is one row of L:
//   lateral[u] = sum_v L[u][v] * act[v]          (source 'all': sum over the other maps of H_ij a^j)
//   lateral[u] = sum_m L[u][offset_m + winner_m] (source 'bmu': the other maps' winners' columns)
// in lateral_accum_t, exact, so the zero blocks and the order change nothing. Global winner: the first
// largest of the maps' winner activities, map 0 first (ties: the lower map).
// Strategy: Latency pipelines the whole layer at II = reuse_factor; Resource folds every map's distance
// stage (nnet_som.h som_fold, per map), for source 'all' the lateral products of L
// (resom_maps_folded_lateral), and every map's normalising divisions (nnet_resom.h resom_combine) by
// reuse_factor: the same writes in the same order, the same bits for every reuse factor.
#ifndef NNET_RESOM_MAPS_H_
#define NNET_RESOM_MAPS_H_

#include "nnet_resom.h"

namespace nnet {

struct resom_maps_config {
    // Required typedefs: accum_t, codebook_t, lateral_t, lateral_accum_t, activity_t, remainder_t,
    // label_t, and per map m: table_<m>_index_t, root_<m>_t.
    // Required per map m: n_in_<m>, n_units_<m>, unit_offset_<m>, codebook_offset_<m>, table_shift_<m>.
    static const unsigned n_maps = 3;
    static const unsigned n_units = 12; // all maps
    static const unsigned n_codebook = 24; // all codebook values
    static const unsigned n_out = 1;
    static const unsigned distance = som_squared_euclidean;
    static const unsigned source = resom_all;
    static const unsigned combine = resom_product;
    static const unsigned iterations = 1;
    static const unsigned output = resom_label;
    static const unsigned activity_fraction = 15;
    static const unsigned table_size = 1024;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
    static const unsigned strategy = latency; // Resource: distances, lateral products, divisions folded by RF
};

// The SOM view of map `Map` (for resom_afferent): its sizes, offsets and table types.
template <class CONFIG_T, unsigned Map> struct resom_maps_map;

#define NNET_RESOM_MAPS_MAP(M)                                                                                    \
    template <class CONFIG_T> struct resom_maps_map<CONFIG_T, M> {                                                \
        typedef typename CONFIG_T::accum_t accum_t;                                                               \
        typedef typename CONFIG_T::codebook_t codebook_t;                                                         \
        typedef typename CONFIG_T::table_##M##_index_t index_t;                                                   \
        typedef typename CONFIG_T::root_##M##_t root_t;                                                           \
        static const unsigned n_in = CONFIG_T::n_in_##M;                                                          \
        static const unsigned n_units = CONFIG_T::n_units_##M;                                                    \
        static const unsigned n_out = CONFIG_T::n_units_##M;                                                      \
        static const unsigned offset = CONFIG_T::unit_offset_##M;                                                 \
        static const unsigned codebook_offset = CONFIG_T::codebook_offset_##M;                                    \
        static const unsigned distance = CONFIG_T::distance;                                                      \
        static const unsigned table_size = CONFIG_T::table_size;                                                  \
        static const int table_shift = CONFIG_T::table_shift_##M;                                                 \
        static const unsigned strategy = CONFIG_T::strategy;                                                      \
        static const unsigned reuse_factor = CONFIG_T::reuse_factor;                                              \
    };

NNET_RESOM_MAPS_MAP(0)
NNET_RESOM_MAPS_MAP(1)
NNET_RESOM_MAPS_MAP(2)
NNET_RESOM_MAPS_MAP(3)
NNET_RESOM_MAPS_MAP(4)
NNET_RESOM_MAPS_MAP(5)
NNET_RESOM_MAPS_MAP(6)
NNET_RESOM_MAPS_MAP(7)
#undef NNET_RESOM_MAPS_MAP

// Afferent activities and BMU of map `Map` and of every later one (one data argument per map).
template <class CONFIG_T, unsigned Map>
inline void resom_maps_afferents(const typename CONFIG_T::codebook_t[], const typename CONFIG_T::activity_t[],
                                 typename CONFIG_T::activity_t[], unsigned[]) {}

template <class CONFIG_T, unsigned Map, class data_T, class... rest_T>
inline void resom_maps_afferents(const typename CONFIG_T::codebook_t codebooks[CONFIG_T::n_codebook],
                                 const typename CONFIG_T::activity_t tables[CONFIG_T::n_maps * CONFIG_T::table_size],
                                 typename CONFIG_T::activity_t act[CONFIG_T::n_units], unsigned winners[CONFIG_T::n_maps],
                                 const data_T *data, const rest_T *...rest) {
    NNET_INLINE
    typedef resom_maps_map<CONFIG_T, Map> map_t;
    winners[Map] = resom_afferent<data_T, CONFIG_T, map_t>(data, codebooks + map_t::codebook_offset,
                                                           tables + Map * CONFIG_T::table_size, act + map_t::offset);
    resom_maps_afferents<CONFIG_T, Map + 1>(codebooks, tables, act, winners, rest...);
}

// The fold of the Resource lateral products: the n_units * n_units entries of L in reuse_factor blocks.
template <class CONFIG_T> struct resom_maps_lateral_fold {
    static const unsigned n_terms = CONFIG_T::n_units * CONFIG_T::n_units;
    static const unsigned block_factor = ceil_div(n_terms, CONFIG_T::reuse_factor);
};

// Resource, source 'all': L walked row-major, block_factor entries per step, reuse_factor steps at II = 1.
// Entry k adds L[k] * act[k % n_units] to result[k / n_units]: every sum keeps its terms in increasing
// order, so the bits are those of the unrolled sums for every reuse factor. The zero blocks are walked
// too (their products add exact zeros): one walk of the whole matrix keeps the step's lanes uniform.
template <class CONFIG_T>
inline void resom_maps_folded_lateral(const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                                      const typename CONFIG_T::activity_t act[CONFIG_T::n_units],
                                      typename CONFIG_T::lateral_accum_t result[CONFIG_T::n_units]) {
    NNET_INLINE
    typedef resom_maps_lateral_fold<CONFIG_T> fold;
    constexpr unsigned block_factor = fold::block_factor;
    NNET_UNROLL
    for (unsigned u = 0; u < CONFIG_T::n_units; u++) {
        result[u] = 0;
    }
    for (unsigned step = 0; step < CONFIG_T::reuse_factor; step++) {
        NNET_PIPELINE(1)
        NNET_UNROLL
        for (unsigned m = 0; m < block_factor; m++) {
            const unsigned k = step * block_factor + m;
            if (k < fold::n_terms) {
                result[k / CONFIG_T::n_units] += matrix[k] * act[k % CONFIG_T::n_units];
            }
        }
    }
}

// Every unit's lateral input: its row of L times the activities ('all'; Resource: folded), or the sum of
// its row's entries at the maps' winners ('bmu'; the own map's entry is 0).
template <class CONFIG_T>
inline void resom_maps_lateral(const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                               const typename CONFIG_T::activity_t act[CONFIG_T::n_units],
                               const bool winning[CONFIG_T::n_units],
                               typename CONFIG_T::lateral_accum_t result[CONFIG_T::n_units]) {
    NNET_INLINE
    static const unsigned n = CONFIG_T::n_units;
    if (CONFIG_T::source == resom_all && CONFIG_T::strategy == resource) {
        resom_maps_folded_lateral<CONFIG_T>(matrix, act, result);
        return;
    }
    NNET_UNROLL
    for (unsigned u = 0; u < n; u++) {
        typename CONFIG_T::lateral_accum_t acc = 0;
        NNET_UNROLL
        for (unsigned v = 0; v < n; v++) {
            if (CONFIG_T::source == resom_all) {
                acc += matrix[u * n + v] * act[v];
            } else if (winning[v]) {
                acc += matrix[u * n + v];
            }
        }
        result[u] = acc;
    }
}

// One round's combination and winners for map `Map` and every later one.
template <class CONFIG_T, unsigned Map, bool Done = (Map >= CONFIG_T::n_maps)> struct resom_maps_each {
    static void combine(typename CONFIG_T::activity_t act[CONFIG_T::n_units],
                        const typename CONFIG_T::lateral_accum_t lateral[CONFIG_T::n_units],
                        unsigned winners[CONFIG_T::n_maps]) {
        NNET_INLINE
        typedef resom_maps_map<CONFIG_T, Map> map_t;
        resom_combine<CONFIG_T, map_t::n_units>(act + map_t::offset, lateral + map_t::offset);
        winners[Map] = resom_first_largest<typename CONFIG_T::activity_t, map_t::n_units>(act + map_t::offset);
        resom_maps_each<CONFIG_T, Map + 1>::combine(act, lateral, winners);
    }
    static void mark(const unsigned winners[CONFIG_T::n_maps], bool winning[CONFIG_T::n_units]) {
        NNET_INLINE
        typedef resom_maps_map<CONFIG_T, Map> map_t;
        NNET_UNROLL
        for (unsigned n = 0; n < map_t::n_units; n++) {
            winning[map_t::offset + n] = n == winners[Map];
        }
        resom_maps_each<CONFIG_T, Map + 1>::mark(winners, winning);
    }
    // the largest block factor of the maps' folded distance stages (Resource)
    static const unsigned block_factor = som_fold<resom_maps_map<CONFIG_T, Map>>::block_factor >
                                                 resom_maps_each<CONFIG_T, Map + 1>::block_factor
                                             ? som_fold<resom_maps_map<CONFIG_T, Map>>::block_factor
                                             : resom_maps_each<CONFIG_T, Map + 1>::block_factor;
    // the first unit of map `map` in the concatenation
    static unsigned offset(unsigned map) {
        return map == Map ? resom_maps_map<CONFIG_T, Map>::offset : resom_maps_each<CONFIG_T, Map + 1>::offset(map);
    }
};

template <class CONFIG_T, unsigned Map> struct resom_maps_each<CONFIG_T, Map, true> {
    static void combine(typename CONFIG_T::activity_t[], const typename CONFIG_T::lateral_accum_t[], unsigned[]) {}
    static void mark(const unsigned[], bool[]) {}
    static const unsigned block_factor = 1;
    static unsigned offset(unsigned) { return 0; }
};

// The layer; resom_maps() below picks its schedule.
template <class res_T, class CONFIG_T, class... data_T>
inline void resom_maps_stages(res_T res[CONFIG_T::n_out],
                              const typename CONFIG_T::codebook_t codebooks[CONFIG_T::n_codebook],
                              const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                              const typename CONFIG_T::label_t labels[CONFIG_T::n_units],
                              const typename CONFIG_T::activity_t tables[CONFIG_T::n_maps * CONFIG_T::table_size],
                              const data_T *...data) {
    NNET_INLINE
    static_assert(sizeof...(data_T) == CONFIG_T::n_maps, "resom_maps: one input per map");
    typedef resom_maps_each<CONFIG_T, 0> each;
    typename CONFIG_T::activity_t act[CONFIG_T::n_units];
    typename CONFIG_T::lateral_accum_t lateral[CONFIG_T::n_units];
    bool winning[CONFIG_T::n_units];
    unsigned winners[CONFIG_T::n_maps];
    NNET_ARRAY_PARTITION_COMPLETE(act)
    NNET_ARRAY_PARTITION_COMPLETE(lateral)
    NNET_ARRAY_PARTITION_COMPLETE(winning)
    NNET_ARRAY_PARTITION_COMPLETE(winners)
    resom_maps_afferents<CONFIG_T, 0>(codebooks, tables, act, winners, data...);
    NNET_UNROLL
    for (unsigned round = 0; round < CONFIG_T::iterations; round++) {
        each::mark(winners, winning);
        resom_maps_lateral<CONFIG_T>(matrix, act, winning, lateral);
        each::combine(act, lateral, winners);
    }
    if (CONFIG_T::output == resom_activities) {
        NNET_UNROLL
        for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
            res[n] = act[n];
        }
        return;
    }
    if (CONFIG_T::output == resom_winners) {
        NNET_UNROLL
        for (unsigned map = 0; map < CONFIG_T::n_maps; map++) {
            res[map] = winners[map];
        }
        return;
    }
    unsigned winner = each::offset(0) + winners[0];
    NNET_UNROLL
    for (unsigned map = 1; map < CONFIG_T::n_maps; map++) {
        const unsigned candidate = each::offset(map) + winners[map];
        if (greater_than(act[candidate], act[winner])) {
            winner = candidate;
        }
    }
    if (CONFIG_T::output == resom_index) {
        res[0] = winner;
    } else {
        res[0] = labels[winner];
    }
}

// Latency: the whole layer pipelined at II = reuse_factor.
template <class res_T, class CONFIG_T, class... data_T>
void resom_maps_pipelined(res_T res[CONFIG_T::n_out], const typename CONFIG_T::codebook_t codebooks[CONFIG_T::n_codebook],
                          const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                          const typename CONFIG_T::label_t labels[CONFIG_T::n_units],
                          const typename CONFIG_T::activity_t tables[CONFIG_T::n_maps * CONFIG_T::table_size],
                          const data_T *...data) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    resom_maps_stages<res_T, CONFIG_T, data_T...>(res, codebooks, matrix, labels, tables, data...);
}

// Resource: not pipelined as a whole (that would unroll the folds); the folds' steps are, at II = 1. The
// codebooks share one array, reshaped cyclically by the largest map's block factor (a smaller map's step
// may then read two words); L is reshaped by the lateral fold's block factor.
template <class res_T, class CONFIG_T, class... data_T>
void resom_maps_folded(res_T res[CONFIG_T::n_out], const typename CONFIG_T::codebook_t codebooks[CONFIG_T::n_codebook],
                       const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                       const typename CONFIG_T::label_t labels[CONFIG_T::n_units],
                       const typename CONFIG_T::activity_t tables[CONFIG_T::n_maps * CONFIG_T::table_size],
                       const data_T *...data) {
    constexpr unsigned codebook_factor = resom_maps_each<CONFIG_T, 0>::block_factor;
    constexpr unsigned lateral_factor = resom_maps_lateral_fold<CONFIG_T>::block_factor;
    NNET_ARRAY_RESHAPE_CYCLIC(codebooks, codebook_factor)
    NNET_ARRAY_RESHAPE_CYCLIC(matrix, lateral_factor)
    (void)codebook_factor, (void)lateral_factor; // read by the pragmas only (none in C-simulation)
    resom_maps_stages<res_T, CONFIG_T, data_T...>(res, codebooks, matrix, labels, tables, data...);
}

template <class res_T, class CONFIG_T, class... data_T>
void resom_maps(res_T res[CONFIG_T::n_out], const typename CONFIG_T::codebook_t codebooks[CONFIG_T::n_codebook],
                const typename CONFIG_T::lateral_t matrix[CONFIG_T::n_units * CONFIG_T::n_units],
                const typename CONFIG_T::label_t labels[CONFIG_T::n_units],
                const typename CONFIG_T::activity_t tables[CONFIG_T::n_maps * CONFIG_T::table_size],
                const data_T *...data) {
    NNET_INLINE
    if (CONFIG_T::strategy == resource) {
        resom_maps_folded<res_T, CONFIG_T, data_T...>(res, codebooks, matrix, labels, tables, data...);
    } else {
        resom_maps_pipelined<res_T, CONFIG_T, data_T...>(res, codebooks, matrix, labels, tables, data...);
    }
}

} // namespace nnet

#endif
