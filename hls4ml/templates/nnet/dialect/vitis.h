// Vitis HLS dialect: ap_fixed/ap_int types and `#pragma HLS ...` spellings.
//
// Placement (Vitis convention): every macro goes at the start of the body it applies to, i.e. the
// first lines of a function body or of a loop body; variable pragmas after the declaration.
//
//   NNET_PIPELINE(ii)                    pipeline the enclosing function or loop at initiation interval ii
//   NNET_UNROLL                          fully unroll the loop that follows (see below)
//   NNET_INLINE / NNET_INLINE_OFF        inline the enclosing function / keep it a separate module
//   NNET_ARRAY_PARTITION_COMPLETE(var)   one register per element
//   NNET_ARRAY_RESHAPE_BLOCK(var, f)     f consecutive-block banks packed into wide words
//   NNET_ARRAY_RESHAPE_CYCLIC(var, f)    words of f consecutive elements (element k in word k / f)
//   NNET_ALLOCATION_MUL(count)           at most `count` multipliers in the enclosing function
//   NNET_DATAFLOW                        task-level pipelining of the enclosing function
//   NNET_STREAM_DEPTH(var, depth)        FIFO depth of a local stream variable (after its declaration)
//   NNET_INTERFACE_AXIS(port)            an AXI4-Stream interface on a top-level stream port
//
// io_stream kernels pass tensors as `nnet::stream<nnet::array<T, N>>` (nnet_types.h); the stream
// alias (nnet_dialect.h) names the vendor's hls::stream (or our C-simulation model, templates/stream/).
//
// NNET_UNROLL is written on the line before a loop (Catapult reads loop pragmas there). In Vitis
// every loop inside a pipelined function or loop is unrolled anyway, and the kernels only unroll
// loops there, so the Vitis spelling is empty: a `#pragma HLS UNROLL` before a loop would apply to
// the enclosing loop instead.
#ifndef NNET_DIALECT_VITIS_H_
#define NNET_DIALECT_VITIS_H_

#include "ap_fixed.h"
#include "ap_int.h"

#define NNET_DIALECT_NAME "vitis"

#ifdef __SYNTHESIS__
#define NNET_PRAGMA(text) _Pragma(#text)
#define NNET_PIPELINE(ii) NNET_PRAGMA(HLS PIPELINE II=ii)
#define NNET_INLINE NNET_PRAGMA(HLS INLINE)
#define NNET_INLINE_OFF NNET_PRAGMA(HLS INLINE off)
#define NNET_ARRAY_PARTITION_COMPLETE(var) NNET_PRAGMA(HLS ARRAY_PARTITION variable=var complete)
#define NNET_ARRAY_RESHAPE_BLOCK(var, f) NNET_PRAGMA(HLS ARRAY_RESHAPE variable=var block factor=f)
#define NNET_ARRAY_RESHAPE_CYCLIC(var, f) NNET_PRAGMA(HLS ARRAY_RESHAPE variable=var cyclic factor=f)
#define NNET_ALLOCATION_MUL(count) NNET_PRAGMA(HLS ALLOCATION operation instances=mul limit=count)
#define NNET_DATAFLOW NNET_PRAGMA(HLS DATAFLOW)
#define NNET_STREAM_DEPTH(var, depth) NNET_PRAGMA(HLS STREAM variable=var depth=depth)
#define NNET_INTERFACE_AXIS(port) NNET_PRAGMA(HLS INTERFACE axis port=port)
#endif

// NNET_UNROLL and, in C-simulation, every other directive: empty
#include "defaults.h"

#endif
