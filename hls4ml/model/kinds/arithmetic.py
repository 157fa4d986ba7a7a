"""Element-wise arithmetic: merging two tensors, batch normalization and HGQ2's heterogeneous
quantizer. Each kind is one block of `Arithmetic`: its rules, its reference kernel, its record."""

from __future__ import annotations

import numpy as np

from hls4ml.model import reference
from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, RESULT_ONLY, KindRecord, element_wise, weights_of
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import affine_types, is_auto, merge_types
from hls4ml.model.quantizer import OVERFLOW_MODES, PARAMETERS, container_type, period, triples_of
from hls4ml.model.reference import merge
from hls4ml.model.types import FixedPrecisionType, RoundingMode

MERGE_OPERATIONS = ('add', 'subtract', 'multiply', 'average', 'maximum', 'minimum')
HALF = FixedPrecisionType(1, 0, False)  # holds 0.5 exactly: the average's halving


class Arithmetic:
    """The element-wise arithmetic kinds (`Kind` inherits them)."""

    # ---- Merge: two inputs of one shape combined value by value (attribute op: MERGE_OPERATIONS) ----

    @staticmethod
    def _merge_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        first, second = inputs
        result, operation = layer.types['result'], layer.attributes['op']
        if operation == 'average':
            return merge.average(first, second, result, HALF)
        return getattr(merge, operation)(first, second, result)

    MERGE = KindRecord(
        'Merge',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shapes.merge_shape,
        precision_rule=merge_types,
        reference=_merge_reference,
        choices={'op': MERGE_OPERATIONS},
    )

    # ---- BatchNormalization: y = scale * x + bias, per element --------------------------------------

    @staticmethod
    def _batchnorm_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        affine_types(graph, layer, context, 'scale', summed=False)

    @staticmethod
    def _batchnorm_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        scale, bias = weights_of(layer, 'scale', 'scale', family), weights_of(layer, 'bias', 'bias', family)
        return reference.normalize(inputs[0], scale, bias, layer.types['result'])

    BATCH_NORMALIZATION = element_wise(
        'BatchNormalization',
        {'result': 'auto', 'scale': 'auto', 'bias': 'auto'},
        precision_rule=_batchnorm_types,
        reference=_batchnorm_reference,
        weights=('scale', 'bias'),
        weight_shapes=shapes.per_element_weights('scale', 'bias'),
    )

    # ---- FixedPointQuantizer: HGQ2's heterogeneous quantizer ----------------------------------------
    # value j written into its own fixed<k+i+f, k+i> of triple j % n_params (weights keep_negative,
    # integer_bits, fraction_bits), with the attributes' rounding and overflow (WRAP, SAT, SAT_SYM); the
    # result is their exact container (hls4ml/model/quantizer.py, docs/quantization.md)

    @staticmethod
    def _quantizer_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        if is_auto(layer.types['result']):
            layer.types['result'] = container_type(triples_of(layer))

    @staticmethod
    def _quantizer_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        result = layer.types['result']
        assert isinstance(result, FixedPrecisionType)
        return reference.fixed_point_quantizer(inputs[0], triples_of(layer), result)

    FIXED_POINT_QUANTIZER = element_wise(
        'FixedPointQuantizer',
        RESULT_ONLY,
        config_keys=COMMON_KEYS,
        precision_rule=_quantizer_types,
        reference=_quantizer_reference,
        weights=PARAMETERS,
        weight_shapes=shapes.quantizer_weights,
    )


def quantizer_layer(
    name: str, source: str, triples: tuple[np.ndarray, np.ndarray, np.ndarray], modes: tuple[str, str], channels: int
) -> Layer:
    """A FixedPointQuantizer layer reading tensor `source`, from per-element (k, i, f) arrays of the
    flattened channels-last tensor (stored per channel or once when they repeat so)."""
    rounding, overflow = modes
    if overflow not in OVERFLOW_MODES:
        raise ValueError(f'overflow mode {overflow!r} is not supported ({", ".join(OVERFLOW_MODES)})')
    RoundingMode.from_string(rounding)
    flat = [np.asarray(array, dtype=np.float64).reshape(-1) for array in triples]
    n_params = period(flat, channels)
    weights = {key: array[:n_params].copy() for key, array in zip(PARAMETERS, flat, strict=True)}
    attributes = {'n_in': flat[0].size, 'n_params': n_params, 'rounding': rounding, 'overflow': overflow}
    return Layer(name, Arithmetic.FIXED_POINT_QUANTIZER, [source], [name], attributes, weights)
