// On-chip learning (docs/resom.md): the Kohonen update of a SOM codebook (spec A.8) and the Hebbian
// update of the ReSOM lateral matrix H[n_units_x][n_units_y] (spec A.9).
//
// Bit for bit (hls4ml/model/reference/resom_learn.py). Kohonen, per sample, with the BMU of the codebook
// before the step (nnet_som.h) and the Gaussian neighbourhood separable into two tables computed on the
// host for the current sigma (row_table[k] = col_table[k] = exp(-k^2 / (2 sigma^2)), in neighbourhood_t):
//   factor_t f = rate * (row_table[|row_n - row_bmu|] * col_table[|col_n - col_bmu|])
//   w[n][j]    = w[n][j] + f * (x_j - w[n][j])                       (a write into codebook_t)
// Hebbian: each update is one write into lateral_t with its rounding and overflow modes (use SAT: H is
// non-negative and grows with the samples seen):
//   hebb  H[i][j] = H[i][j] + rate * (act_x[i] * act_y[j])
//   oja   H[i][j] = H[i][j] + rate * (act_x[i] * act_y[j] - act_y[j] * act_y[j] * H[i][j])
//   bmu   H[bmu_x][bmu_y] = H[bmu_x][bmu_y] + rate   (one read-modify-write per sample)
// The products are full precision (exact); only the write into lateral_t rounds.
#ifndef NNET_SOM_LEARN_H_
#define NNET_SOM_LEARN_H_

#include "nnet_common.h"
#include "nnet_som.h"

namespace nnet {

enum hebbian_rule { hebbian_hebb = 0, hebbian_oja = 1, hebbian_bmu = 2 };

struct hebbian_config {
    // Required typedefs: lateral_t, activity_t, rate_t.
    static const unsigned n_units_x = 4;
    static const unsigned n_units_y = 4;
    static const unsigned rule = hebbian_hebb;
};

// One Hebbian step of every synapse from the two maps' activities of one paired sample.
template <typename CONFIG_T>
void hebbian_update(typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                    const typename CONFIG_T::activity_t act_x[CONFIG_T::n_units_x],
                    const typename CONFIG_T::activity_t act_y[CONFIG_T::n_units_y],
                    const typename CONFIG_T::rate_t &rate) {
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_units_x; i++) {
        NNET_UNROLL
        for (unsigned j = 0; j < CONFIG_T::n_units_y; j++) {
            const typename CONFIG_T::lateral_t old = lateral[i * CONFIG_T::n_units_y + j];
            if (CONFIG_T::rule == hebbian_oja) {
                lateral[i * CONFIG_T::n_units_y + j] = old + rate * (act_x[i] * act_y[j] - act_y[j] * act_y[j] * old);
            } else {
                lateral[i * CONFIG_T::n_units_y + j] = old + rate * (act_x[i] * act_y[j]);
            }
        }
    }
}

// The BMU-only Hebbian step: the synapse between the two best-matching units grows by `rate`.
template <typename CONFIG_T>
void hebbian_update_bmu(typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                        unsigned bmu_x, unsigned bmu_y, const typename CONFIG_T::rate_t &rate) {
    const unsigned slot = bmu_x * CONFIG_T::n_units_y + bmu_y;
    lateral[slot] = lateral[slot] + rate;
}

// The config of a Hebbian step with its rule fixed (hebbian_step chooses one at run time).
template <typename CONFIG_T, unsigned Rule> struct hebbian_rule_config : CONFIG_T {
    static const unsigned rule = Rule;
};

// One Hebbian step with the rule chosen at run time (the learning top function of a ReSOM layer):
// hebbian_bmu grows the synapse of the two BMUs, hebbian_oja and hebbian_hebb update every synapse.
template <typename CONFIG_T>
void hebbian_step(typename CONFIG_T::lateral_t lateral[CONFIG_T::n_units_x * CONFIG_T::n_units_y],
                  const typename CONFIG_T::activity_t act_x[CONFIG_T::n_units_x],
                  const typename CONFIG_T::activity_t act_y[CONFIG_T::n_units_y], unsigned bmu_x, unsigned bmu_y,
                  const typename CONFIG_T::rate_t &rate, unsigned rule) {
    if (rule == hebbian_bmu) {
        hebbian_update_bmu<CONFIG_T>(lateral, bmu_x, bmu_y, rate);
    } else if (rule == hebbian_oja) {
        hebbian_update<hebbian_rule_config<CONFIG_T, hebbian_oja>>(lateral, act_x, act_y, rate);
    } else {
        hebbian_update<hebbian_rule_config<CONFIG_T, hebbian_hebb>>(lateral, act_x, act_y, rate);
    }
}

// The Hebbian step of one pair (i, j) of a ReSOMMaps layer: the layer's learn config with the pair's
// sizes (its learning top function steps every pair matrix H_ij, stored one after the other).
template <typename CONFIG_T, unsigned NX, unsigned NY> struct hebbian_pair_config : CONFIG_T {
    static const unsigned n_units_x = NX;
    static const unsigned n_units_y = NY;
};

struct kohonen_config {
    // Required typedefs: accum_t (the distance), codebook_t, neighbourhood_t, rate_t, factor_t.
    static const unsigned n_in = 2;
    static const unsigned n_units = 6;
    static const unsigned n_rows = 2;
    static const unsigned n_cols = 3; // unit n sits at (n / n_cols, n % n_cols)
    static const unsigned distance = som_squared_euclidean;
};

// One Kohonen step of the whole codebook towards the sample; returns the BMU (before the step).
template <class data_T, typename CONFIG_T>
unsigned kohonen_update(const data_T data[CONFIG_T::n_in],
                        typename CONFIG_T::codebook_t codebook[CONFIG_T::n_units * CONFIG_T::n_in],
                        const typename CONFIG_T::neighbourhood_t row_table[CONFIG_T::n_rows],
                        const typename CONFIG_T::neighbourhood_t col_table[CONFIG_T::n_cols],
                        const typename CONFIG_T::rate_t &rate) {
    typename CONFIG_T::accum_t dist[CONFIG_T::n_units];
    NNET_UNROLL
    for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
        dist[n] = som_distance_to<data_T, CONFIG_T>(data, codebook, n);
    }
    const unsigned bmu = som_best_unit<CONFIG_T>(dist);
    const unsigned bmu_row = bmu / CONFIG_T::n_cols, bmu_col = bmu % CONFIG_T::n_cols;
    NNET_UNROLL
    for (unsigned n = 0; n < CONFIG_T::n_units; n++) {
        const unsigned row = n / CONFIG_T::n_cols, col = n % CONFIG_T::n_cols;
        const unsigned row_gap = row > bmu_row ? row - bmu_row : bmu_row - row;
        const unsigned col_gap = col > bmu_col ? col - bmu_col : bmu_col - col;
        const typename CONFIG_T::factor_t factor = rate * (row_table[row_gap] * col_table[col_gap]);
        NNET_UNROLL
        for (unsigned j = 0; j < CONFIG_T::n_in; j++) {
            const typename CONFIG_T::codebook_t weight = codebook[n * CONFIG_T::n_in + j];
            codebook[n * CONFIG_T::n_in + j] = weight + factor * (data[j] - weight);
        }
    }
    return bmu;
}

} // namespace nnet

#endif
