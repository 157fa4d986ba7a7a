// oneAPI dialect (SYCL kernels compiled by icpx): ac_fixed/ac_int types and Intel FPGA spellings.
//
// Same macros as dialect/vitis.h (read the list there). The kernels place them as Vitis does, at the
// start of a body or after a declaration; oneAPI spells most directives on a loop statement or on a
// declaration instead, so only the ones that fit their place expand:
//
//   NNET_UNROLL                          #pragma unroll (written on the line before its loop, as clang needs)
//   NNET_PIPELINE(ii)                    empty: [[intel::initiation_interval(ii)]] must precede a loop
//                                        statement; loops are pipelined by default and the kernel's
//                                        `pipelined` property sets the top-level interval
//   NNET_ARRAY_PARTITION_COMPLETE(var)   empty: [[intel::fpga_register]] belongs on the declaration (the
//                                        SYCL kernel wrapper declares its arrays so); small arrays indexed
//                                        by constants in unrolled loops stay in registers anyway
//   the others                           empty (dialect/defaults.h): inlining, multiplier limits,
//                                        dataflow, FIFO depths and interfaces are compiler decisions,
//                                        kernel properties or pipe parameters in oneAPI
//
// Like the other dialects, the directives expand only under __SYNTHESIS__ (the generated CMakeLists
// defines it for the icpx targets). Types: the g++ C-simulation includes our ac_fixed.h / ac_int.h
// here; icpx uses the toolkit's AC types, which the generated defines.h includes first
// (templates/oneapi/dialect.j2 names those headers, so this file names no toolkit header).
#ifndef NNET_DIALECT_ONEAPI_H_
#define NNET_DIALECT_ONEAPI_H_

#ifndef __INTEL_LLVM_COMPILER
#include "ac_fixed.h"
#include "ac_int.h"
#endif

#define NNET_DIALECT_NAME "oneapi"

#ifdef __SYNTHESIS__
#define NNET_UNROLL _Pragma("unroll")
#endif

#include "defaults.h"

#endif
