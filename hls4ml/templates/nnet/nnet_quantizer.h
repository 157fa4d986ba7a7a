// The heterogeneous fixed-point quantizer (IR kind FixedPointQuantizer), io_parallel.
//
// Value i uses triple p = i % n_params: it is written into fixed<b, k+i_p> (b = k+i+f bits) with the
// quantizer's rounding and overflow modes, or is 0 when the triple is pruned. No per-element type
// can be declared in a loop, so the kernel works on integers that every triple shares:
//   rounded_t q = x * scale[p];         x * 2^f rounded to an integer by rounded_t's rounding mode
//   saturate:  q = min(max(q, low[p]), high[p])                  (SAT, SAT_SYM: low = -high)
//   wrap:      wrapped_t m = (q - low[p]) * inverse[p];           ((q - low) / 2^b) mod 1, exact
//              q = m * modulus[p] + low[p];                       back into [low, low + 2^b)
//   res = q * lsb[p];                    q * 2^-f, exact in the container (lsb 0: pruned)
// Every product and sum is exact (the tables are powers of two and integers), so the only roundings
// are rounded_t's and the overflow above. rounded_t saturates (SAT modes) or wraps (WRAP) beyond every
// triple's range, which keeps the clamp, or the residue modulo 2^b, of every value.
#ifndef NNET_QUANTIZER_H_
#define NNET_QUANTIZER_H_

#include "nnet_common.h"

namespace nnet {

struct quantizer_config {
    // Required typedefs: rounded_t, scale_t, lsb_t (saturate and wrap); modulus_t, inverse_t,
    // wrapped_t (wrap only).
    static const unsigned n_in = 10;
    static const unsigned n_params = 10;
    static const unsigned io_type = io_parallel;
    static const unsigned reuse_factor = 1;
};

template <class CONFIG_T> struct quantize_saturate_op {
    const typename CONFIG_T::scale_t *scale;
    const typename CONFIG_T::lsb_t *lsb;
    const typename CONFIG_T::rounded_t *low;
    const typename CONFIG_T::rounded_t *high;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned i) const {
        const unsigned p = i % CONFIG_T::n_params;
        typename CONFIG_T::rounded_t q = x * scale[p];
        if (greater_than(q, high[p]))
            q = high[p];
        else if (greater_than(low[p], q))
            q = low[p];
        out = q * lsb[p];
    }
};

template <class CONFIG_T> struct quantize_wrap_op {
    const typename CONFIG_T::scale_t *scale;
    const typename CONFIG_T::lsb_t *lsb;
    const typename CONFIG_T::rounded_t *low;
    const typename CONFIG_T::modulus_t *modulus;
    const typename CONFIG_T::inverse_t *inverse;
    template <class data_T, class res_T> void operator()(const data_T &x, res_T &out, unsigned i) const {
        const unsigned p = i % CONFIG_T::n_params;
        typename CONFIG_T::rounded_t q = x * scale[p];
        const typename CONFIG_T::wrapped_t residue = (q - low[p]) * inverse[p];
        q = residue * modulus[p] + low[p];
        out = q * lsb[p];
    }
};

// SAT and SAT_SYM quantizers.
template <class data_T, class res_T, typename CONFIG_T>
void quantize_saturate(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                       const typename CONFIG_T::scale_t scale[CONFIG_T::n_params],
                       const typename CONFIG_T::lsb_t lsb[CONFIG_T::n_params],
                       const typename CONFIG_T::rounded_t low[CONFIG_T::n_params],
                       const typename CONFIG_T::rounded_t high[CONFIG_T::n_params]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, quantize_saturate_op<CONFIG_T>{scale, lsb, low, high});
}

// WRAP quantizers.
template <class data_T, class res_T, typename CONFIG_T>
void quantize_wrap(const data_T data[CONFIG_T::n_in], res_T res[CONFIG_T::n_in],
                   const typename CONFIG_T::scale_t scale[CONFIG_T::n_params],
                   const typename CONFIG_T::lsb_t lsb[CONFIG_T::n_params],
                   const typename CONFIG_T::rounded_t low[CONFIG_T::n_params],
                   const typename CONFIG_T::modulus_t modulus[CONFIG_T::n_params],
                   const typename CONFIG_T::inverse_t inverse[CONFIG_T::n_params]) {
    NNET_PIPELINE(CONFIG_T::reuse_factor)
    elementwise<CONFIG_T::n_in>(data, res, quantize_wrap_op<CONFIG_T>{scale, lsb, low, modulus, inverse});
}

} // namespace nnet

#endif
