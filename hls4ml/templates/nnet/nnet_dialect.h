// Selects the dialect the kernel library is compiled with. A dialect is the only place where the
// vendors differ for the kernels: which fixed-point headers to include and how pragmas are spelled.
//
//   (default)              dialect/vitis.h  ap_fixed / ap_int, Vitis HLS pragmas
//   -DHLS4ML_DIALECT_AC    dialect/ac.h     ac_fixed / ac_int, Catapult-style pragmas
//
// Every dialect defines the same macros (see dialect/vitis.h for the list and their placement).
// Pragmas expand only when __SYNTHESIS__ is defined, so the C-simulation build stays warning-free.
#ifndef NNET_DIALECT_H_
#define NNET_DIALECT_H_

#ifdef HLS4ML_DIALECT_AC
#include "dialect/ac.h"
#else
#include "dialect/vitis.h"
#endif

#endif
