"""The bit-accurate numpy twin of the project's fixed-point C++ headers (and of the vendors').

`quantize` writes floats into a type, `FixedArray` computes +, -, *, /, shifts and casts exactly
as `ap_fixed`/`ac_fixed` do, `result_type` gives the full-precision type of each operator.
Semantics: `shared/specs/fixed-point.md`; checked against the vendor golden vectors in the tests.
"""

from hls4ml.model.fixed.array import FixedArray, quantize
from hls4ml.model.fixed.result_types import result_type

__all__ = ['FixedArray', 'quantize', 'result_type']
