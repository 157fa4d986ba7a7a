// hls4ml_fixed: one bit-exact fixed-point core behind two thin faces, ap_* (Xilinx spelling)
// and ac_* (Algorithmic C spelling), following shared/specs/fixed-point.md (clean rules only;
// the vendor quirks of its section 12 are deliberately not emulated).
//
// Design
// * A value is a raw integer r with value r * 2^(I-W), stored in the smallest native signed
//   integer that holds W (+1 for unsigned) bits, __int128 up to 128 bits, wide_int beyond.
//   The raw integer is kept canonical (exact value, sign/zero-extended), so full-precision
//   arithmetic is plain integer arithmetic in the result's storage after aligning binary
//   points, and 8..32-bit kernels compile to a few native instructions.
// * One cast (quantize.h: scale, quantize, overflow) serves every write into a declared type,
//   from fixed values, C integers, doubles and strings, and the to_int() family.
// * One set of operators (operators.h) works on the core class fixed_value<Family, W, I, S,
//   IsInt>; the Family policy (defined by each face) names the C++ result classes and holds
//   the few behaviours where the families differ (to_int rounding, ~, ++, -int width, text
//   format, comparison with double, which conversions compile).
// * Faces (../ap_int.h, ../ap_fixed.h, ../ac_int.h, ../ac_fixed.h) only declare classes,
//   statics, vendor-named members and implicit conversions.
// Files: wide_int.h (multi-word integer), integers.h (storage choice, bit helpers),
// quantize.h (the cast, double decomposition, rounding to double/float), format.h
// (to_string formats), literal.h (string constructor), value.h (core class, bit/range
// proxies, constructors), operators.h (all operators).
// HLS4ML_CSIM_NO_TEXT (defined by the C-simulation build of hls4ml/csim/compiler.py) leaves out
// everything text: <string>, format.h, literal.h, to_string()/text(); string-literal constructors and
// stream output are then deleted, so a use fails to compile instead of behaving differently. It only
// saves parsing (<string> is about a third of a small model's compile); no arithmetic changes.
#ifndef HLS4ML_FIXED_CORE_H
#define HLS4ML_FIXED_CORE_H

#ifndef HLS4ML_CSIM_NO_TEXT
#include "literal.h"
#endif
#include "operators.h"

#endif
