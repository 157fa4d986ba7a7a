// The directive macros a dialect leaves empty. A dialect header defines the directives it spells,
// then includes this file, which defines every other one as nothing (the list and the placement of
// the directives are in dialect/vitis.h).
#ifndef NNET_DIALECT_DEFAULTS_H_
#define NNET_DIALECT_DEFAULTS_H_

#ifndef NNET_PIPELINE
#define NNET_PIPELINE(ii)
#endif
#ifndef NNET_UNROLL
#define NNET_UNROLL
#endif
#ifndef NNET_INLINE
#define NNET_INLINE
#endif
#ifndef NNET_INLINE_OFF
#define NNET_INLINE_OFF
#endif
#ifndef NNET_ARRAY_PARTITION_COMPLETE
#define NNET_ARRAY_PARTITION_COMPLETE(var)
#endif
#ifndef NNET_ARRAY_RESHAPE_BLOCK
#define NNET_ARRAY_RESHAPE_BLOCK(var, f)
#endif
#ifndef NNET_ARRAY_RESHAPE_CYCLIC
#define NNET_ARRAY_RESHAPE_CYCLIC(var, f)
#endif
#ifndef NNET_ALLOCATION_MUL
#define NNET_ALLOCATION_MUL(count) (void)(count); // keeps a local limit "used" for -Wunused
#endif
#ifndef NNET_DATAFLOW
#define NNET_DATAFLOW
#endif
#ifndef NNET_STREAM_DEPTH
#define NNET_STREAM_DEPTH(var, depth)
#endif
#ifndef NNET_INTERFACE_AXIS
#define NNET_INTERFACE_AXIS(port)
#endif

#endif
