// Algorithmic C style fixed-point type ac_fixed on the shared hls4ml_fixed core.
#ifndef HLS4ML_AC_FIXED_H
#define HLS4ML_AC_FIXED_H

#include "ac_int.h"

template <int W, int I, bool S, ac_q_mode Q, ac_o_mode O>
class ac_fixed : public hls4ml_fixed::ac_common<W, I, S, false, Q, O> {
  public:
    using base = hls4ml_fixed::ac_common<W, I, S, false, Q, O>;
    using base::base;
};

#endif
