// Selects the dialect the kernel library is compiled with. A dialect is the only place where the
// vendors differ for the kernels: which fixed-point headers to include and how pragmas are spelled.
//
//   (default)                dialect/vitis.h   ap_fixed / ap_int, Vitis HLS pragmas
//   -DHLS4ML_DIALECT_AC      dialect/ac.h      ac_fixed / ac_int, Catapult-style pragmas
//   -DHLS4ML_DIALECT_ONEAPI  dialect/oneapi.h  ac_fixed / ac_int, Intel FPGA (SYCL, icpx) spellings
//
// Every dialect defines the same macros (see dialect/vitis.h for the list and their placement).
// Pragmas expand only when __SYNTHESIS__ is defined, so the C-simulation build stays warning-free.
#ifndef NNET_DIALECT_H_
#define NNET_DIALECT_H_

#if defined(HLS4ML_DIALECT_ONEAPI)
#include "dialect/oneapi.h"
#elif defined(HLS4ML_DIALECT_AC)
#include "dialect/ac.h"
#else
#include "dialect/vitis.h"
#endif

// Kernel state kept between calls (the io_stream line buffers) is NNET_PERSISTENT: `static`, as the HLS
// tools expect. The C-simulation library that Python loads defines HLS4ML_CSIM_THREADS (in its bridge):
// there each thread has its own copy, so several threads may run one model at the same time.
#if defined(HLS4ML_CSIM_THREADS) && !defined(__SYNTHESIS__)
#define NNET_PERSISTENT static thread_local
#else
#define NNET_PERSISTENT static
#endif

// io_stream tensors: nnet::stream<T>. With -DHLS4ML_STREAM_AC_CHANNEL (Catapult) it is ac_channel<T>;
// in a oneAPI device build (HLS4ML_DIALECT_ONEAPI with __SYNTHESIS__) a bounded FIFO in an array,
// nnet_fifo.h, sized by the generated kernel header; otherwise hls::stream<T>: the vendor's header, or
// our C-simulation model of it (templates/stream/, which the writer copies next to the type headers,
// with our ac_channel.h). ac_channel.h is always reachable where the ac_channel streams are chosen;
// io_parallel builds may not have hls_stream.h on the include path, so it is pulled in only when
// reachable (the io_stream kernel headers include it).
#if defined(HLS4ML_DIALECT_ONEAPI) && defined(__SYNTHESIS__)
#include "nnet_fifo.h"
namespace nnet {
template <class T> using stream = fifo<T, stream_capacity<T>::value>;
} // namespace nnet
#elif defined(HLS4ML_STREAM_AC_CHANNEL)
#include "ac_channel.h"
namespace nnet {
template <class T> using stream = ac_channel<T>;
} // namespace nnet
#else
#if defined(__has_include)
#if __has_include("hls_stream.h")
#define NNET_HAS_HLS_STREAM
#endif
#else
#define NNET_HAS_HLS_STREAM
#endif

#ifdef NNET_HAS_HLS_STREAM
#include "hls_stream.h"
namespace nnet {
template <class T> using stream = hls::stream<T>;
} // namespace nnet
#endif
#endif

#endif
