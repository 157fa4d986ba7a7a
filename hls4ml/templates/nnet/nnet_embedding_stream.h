// Embedding, io_stream: every input element holds data_T::size indices; each index becomes one output
// element (one token) of n_dim values, through the io_parallel row (nnet_embedding.h).
#ifndef NNET_EMBEDDING_STREAM_H_
#define NNET_EMBEDDING_STREAM_H_

#include "nnet_embedding.h"
#include "nnet_stream.h"

namespace nnet {

template <class data_T, class res_T, typename CONFIG_T>
void embedding(stream<data_T> &data, stream<res_T> &res,
               const typename CONFIG_T::embeddings_t embeddings[CONFIG_T::n_vocab * CONFIG_T::n_dim]) {
    static_assert(res_T::size == CONFIG_T::n_dim, "embedding stream: an output element is one row");
    for (unsigned e = 0; e < stream_elements<data_T, CONFIG_T::n_in>::count; e++) {
        const data_T in = data.read();
        for (unsigned i = 0; i < data_T::size; i++) {
            NNET_PIPELINE(1)
            res_T out;
            embedding_row<typename data_T::value_type, typename res_T::value_type, CONFIG_T>(in.data[i], out.data,
                                                                                            embeddings);
            res.write(out);
        }
    }
}

} // namespace nnet

#endif
