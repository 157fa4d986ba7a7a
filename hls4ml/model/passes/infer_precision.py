"""Replace every 'auto' precision by a concrete type.

Accumulators and results of Dense and BatchNormalization are made overflow-free from the actual
(quantized) weights and the input type's range: the fraction bits keep every product exact, the
integer bits hold the largest possible |sum|. That is narrower than hls4ml's width-only rule
(`Win + Ww + log2 n`) and just as safe. `maximum` (config `Precision: {maximum: ...}`, by default
`passes.DEFAULT_MAXIMUM_PRECISION`) then clamps the width and the integer bits separately, and one
warning names every layer where that costs exactness. The default cap exists to stop the growth of
float models' exact types from layer to layer; it leaves quantized layers alone (`Layer.quantized`:
their types follow from the quantizers around them, exact and as narrow as exactness allows), while a
`maximum` the config names applies to every layer. Weights, biases and parameters left 'auto' keep the
default width with the integer bits their values need (no saturation, more fraction bits).
"""

from __future__ import annotations

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS
from hls4ml.model.passes import DEFAULT_MAXIMUM_PRECISION, PassContext
from hls4ml.model.precision_rules import clamped, fitted_type, integer_bits, is_auto, keep_config
from hls4ml.model.types import FixedPrecisionType

__all__ = ['clamped', 'fitted_type', 'infer_precision', 'integer_bits']


def infer_precision(graph: Graph, context: PassContext) -> None:
    """Requires: types from the config ('auto' = UnspecifiedPrecisionType). After: no layer has an
    UnspecifiedPrecisionType; layers are resolved in topological order, so inputs come first.
    """
    cuts = []
    for layer in graph.layers.values():
        record, already_capped = LAYER_KINDS.get(layer.kind), len(context.capped)
        rule = record.precision_rule if record is not None else keep_config  # verify() refuses unknown kinds
        context.cap = None if layer.quantized and context.maximum_is_default else context.maximum
        try:
            rule(graph, layer, context)
        except ValueError as error:  # e.g. an inferred type wider than the supported maximum
            raise ValueError(f'{layer.describe()}: {error}; set a narrower type or Precision maximum') from error
        cuts += [_cut(layer, needed, given) for needed, given in dict.fromkeys(context.capped[already_capped:])]
        for var, precision in layer.types.items():
            if is_auto(precision):
                layer.types[var] = context.default_precision
    if cuts:
        context.warn(
            f"'auto' precision is capped at {context.maximum} (Model Precision 'maximum', by default "
            f'{DEFAULT_MAXIMUM_PRECISION}; docs/quantization.md), which costs exactness: ' + '; '.join(cuts) + '. '
            "Set a wider Precision 'maximum' (max_precision=...) to keep these types exact."
        )


def _cut(layer: Layer, needed: FixedPrecisionType, given: FixedPrecisionType) -> str:
    """What capping `needed` to `given` costs in `layer`, in words."""
    costs = []
    if given.integer < needed.integer:
        costs.append(f'{needed.integer - given.integer} integer bit(s) fewer: large values may overflow')
    if given.fractional < needed.fractional:
        costs.append(f'{needed.fractional - given.fractional} fraction bit(s) fewer: values are truncated')
    return f'{layer.describe()} needs {needed}, gets {given} ({", ".join(costs)})'
