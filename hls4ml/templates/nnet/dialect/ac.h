// Algorithmic C dialect: ac_fixed/ac_int types and Catapult-style pragma spellings.
//
// Same macros and placement as dialect/vitis.h (read the list there). Catapult sets array
// partitioning, reshaping, resource limits, inlining and dataflow through its directives rather
// than source pragmas, so those macros are empty here; pipelining and unrolling are spelled as
// Catapult source pragmas. Note for the Catapult backend: Catapult reads a loop pragma on the line
// before the loop, so NNET_PIPELINE at the top of a loop body (only the Resource dense outer loop)
// will need revisiting there; NNET_UNROLL is already written before its loops.
// NNET_STREAM_DEPTH and NNET_INTERFACE_AXIS are empty too (FIFO depths and interfaces are
// Catapult directives).
#ifndef NNET_DIALECT_AC_H_
#define NNET_DIALECT_AC_H_

#include "ac_fixed.h"
#include "ac_int.h"

#define NNET_DIALECT_NAME "ac"

#ifdef __SYNTHESIS__
#define NNET_PRAGMA(text) _Pragma(#text)
#define NNET_PIPELINE(ii) NNET_PRAGMA(hls_pipeline_init_interval ii)
#define NNET_UNROLL NNET_PRAGMA(hls_unroll yes)
#endif

// every other directive (and, in C-simulation, these two): empty
#include "defaults.h"

#endif
