// Embedding, io_parallel: each of the n_in integer indices selects a row of n_dim values of the table
// (a ROM of n_vocab * n_dim entries). An index outside [0, n_vocab) gives a row of zeros; the
// frameworks raise an error for it instead. reference/embedding.py is the numpy twin.
#ifndef NNET_EMBEDDING_H_
#define NNET_EMBEDDING_H_

#include "nnet_common.h"

namespace nnet {

struct embedding_config {
    // Required typedef: embeddings_t.
    static const unsigned n_in = 8; // indices
    static const unsigned n_vocab = 16;
    static const unsigned n_dim = 4;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

// The row of one index, or zeros when the index is outside the table.
template <class index_T, class res_T, typename CONFIG_T>
inline void embedding_row(const index_T &index, res_T *res,
                          const typename CONFIG_T::embeddings_t embeddings[CONFIG_T::n_vocab * CONFIG_T::n_dim]) {
    NNET_INLINE
    const bool inside = !is_negative(index) && greater_than(int(CONFIG_T::n_vocab), index);
    const unsigned row = inside ? unsigned(index.to_int()) : 0u;
    NNET_UNROLL
    for (unsigned j = 0; j < CONFIG_T::n_dim; j++) {
        if (inside) {
            res[j] = embeddings[row * CONFIG_T::n_dim + j];
        } else {
            res[j] = 0;
        }
    }
}

template <class data_T, class res_T, typename CONFIG_T>
void embedding(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in * CONFIG_T::n_dim],
               const typename CONFIG_T::embeddings_t embeddings[CONFIG_T::n_vocab * CONFIG_T::n_dim]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    NNET_UNROLL
    for (unsigned i = 0; i < CONFIG_T::n_in; i++) {
        embedding_row<data_T, res_T, CONFIG_T>(data[i], res + i * CONFIG_T::n_dim, embeddings);
    }
}

} // namespace nnet

#endif
