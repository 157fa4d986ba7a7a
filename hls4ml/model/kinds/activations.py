"""Activations: one-input functions applied value by value (softmax: row by row); the output has the
input's shape. Each kind is one block of `Activations`: its rules, its reference kernel, its record."""

from __future__ import annotations

import numpy as np

from hls4ml.model import reference
from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import (
    COMMON_KEYS,
    TABLE_KEYS,
    element_wise,
    fixed_input_type,
    weights_of,
)
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import default_width, fitted_type, input_fixed, is_auto, keep_config
from hls4ml.model.tables import SELU_SCALE, TableSpec, activation_table, explicit_table, softmax_tables
from hls4ml.model.types import FixedPrecisionType

# read from a lookup table (nnet_activation_table.h) or computed exactly (nnet_activation.h); bipolar is
# sign(x) with sign(0) = +1 (QONNX BipolarQuant)
TABLE_ACTIVATIONS = ('sigmoid', 'tanh', 'softplus', 'softsign', 'elu', 'selu', 'gelu', 'gelu_tanh', 'silu')
LOSSLESS_ACTIVATIONS = ('linear', 'relu', 'bipolar')
ACTIVATIONS = (*LOSSLESS_ACTIVATIONS, *TABLE_ACTIVATIONS)
PARAMETRIZED_ACTIVATIONS = ('leaky_relu', 'thresholded_relu', 'elu')
SOFTMAX_IMPLEMENTATIONS = ('stable', 'latency', 'argmax')

BOUNDED_TABLE_ACTIVATIONS = ('sigmoid', 'tanh', 'softsign')
BIPOLAR_TYPE = FixedPrecisionType(2, 2, True)  # the smallest type holding -1 and +1 exactly
DEFAULT_TABLE_PRECISION = 'fixed<18,8,TRN,WRAP,0>'
DEFAULT_SOFTMAX_PRECISION = 'fixed<18,8,RND,SAT,0>'
SOFTMAX_TYPES = {
    'result': 'auto',
    'exp_table': DEFAULT_SOFTMAX_PRECISION,
    'inv_table': DEFAULT_SOFTMAX_PRECISION,
    'accum': DEFAULT_SOFTMAX_PRECISION,
}


def function_table(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
    """The one table of a table activation (attribute 'activation'), keyed by its prefix ''."""
    size = layer.attributes.get('table_size', 1024)
    return {'': activation_table(layer.attributes['activation'], source, layer.types['table'], size)}


def explicit_tables(layer: Layer, prefixes: tuple[str, ...]) -> dict[str, TableSpec]:
    """The tables a frontend computed itself (HGQ2): weights '<prefix>table' with the grid attributes
    '<prefix>table_start', '<prefix>table_shift' and optionally '<prefix>table_index' (the index type)."""
    return {
        prefix: explicit_table(
            f'{layer.name} {prefix}table',
            layer.attributes[f'{prefix}table_start'],
            layer.attributes[f'{prefix}table_shift'],
            layer.weights[f'{prefix}table'],
            layer.types[f'{prefix}table'],
            layer.attributes.get(f'{prefix}table_index'),
        )
        for prefix in prefixes
    }


def softmax_row(layer: Layer) -> int:
    """The values one softmax normalizes together: attribute n_slice (the last axis of an N-D tensor,
    which the frontends make the axis of the softmax), or all n_in values when it is 0 or absent."""
    return int(layer.attributes.get('n_slice') or layer.attributes['n_in'])


class Activations:
    """The activation kinds (`Kind` inherits them)."""

    # ---- Activation: a named function of ACTIVATIONS ---------------------------------------------

    @staticmethod
    def _activation_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Bounded table functions output table values exactly, bipolar its -1 and +1; relu and linear
        keep their input type when a quantization-aware frontend marks them `exact_result` (their input
        is exact and a quantizer reads them); the rest take the default precision (as in hls4ml), which
        also stops widths growing from layer to layer."""
        activation, types = layer.attributes['activation'], layer.types
        source = input_fixed(graph, layer, context)
        exact = layer.attributes.get('exact_result') and activation in ('relu', 'linear')
        if is_auto(types['result']) and exact and source is not None:
            types['result'] = source
        if is_auto(types['result']) and activation == 'bipolar':
            types['result'] = BIPOLAR_TYPE
        if is_auto(types['result']) and activation in BOUNDED_TABLE_ACTIVATIONS and not is_auto(types['table']):
            types['result'] = types['table']
        if activation == 'selu':  # the kernel multiplies positive inputs by the SELU scale, held in param_t
            types['param'] = fitted_type(np.array([SELU_SCALE]), default_width(context))

    @staticmethod
    def _activation_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        activation, result = layer.attributes['activation'], layer.types['result']
        if activation in LOSSLESS_ACTIVATIONS:
            return getattr(reference, activation)(inputs[0], result)
        spec = function_table(layer, fixed_input_type(graph, layer))['']
        if activation == 'selu':
            return reference.selu(inputs[0], layer.types['param'], spec, result)
        return getattr(reference, activation)(inputs[0], spec, result)

    ACTIVATION = element_wise(
        'Activation',
        {'result': 'auto', 'table': DEFAULT_TABLE_PRECISION},
        config_keys=(*COMMON_KEYS, *TABLE_KEYS),
        precision_rule=_activation_types,
        reference=_activation_reference,
        settings=('table_size',),
        choices={'activation': ACTIVATIONS},
        tables=function_table,
    )

    # ---- UnaryLUT: a table over the whole input grid (HGQ2's QUnaryFunctionLUT) --------------------
    # weights 'table': entry k for the input (table_start + k) * 2**-table_shift, computed by the
    # frontend; each input reads its own entry

    @staticmethod
    def _unary_lut_tables(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
        return explicit_tables(layer, ('',))

    @staticmethod
    def _unary_lut_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        spec = explicit_tables(layer, ('',))['']
        return reference.unary_lut(inputs[0], spec, layer.types['result'])

    UNARY_LUT = element_wise(
        'UnaryLUT',
        {'result': 'auto', 'table': 'auto'},
        precision_rule=keep_config,
        reference=_unary_lut_reference,
        weights=('table',),
        weight_shapes=shapes.lut_weights,
        tables=_unary_lut_tables,
    )

    # ---- ParametrizedActivation: leaky_relu, thresholded_relu, elu with their parameter -------------

    @staticmethod
    def _parametrized_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        if is_auto(layer.types['param']):
            parameter = np.array([layer.attributes['activ_param']])
            layer.types['param'] = fitted_type(parameter, default_width(context))
        source = input_fixed(graph, layer, context)
        thresholded = layer.attributes['activation'] == 'thresholded_relu'
        if thresholded and is_auto(layer.types['result']) and source is not None:
            layer.types['result'] = source

    @staticmethod
    def _parametrized_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        activation, parameter = layer.attributes['activation'], layer.attributes['activ_param']
        param, result = layer.types['param'], layer.types['result']
        if activation == 'elu':
            spec = function_table(layer, fixed_input_type(graph, layer))['']
            return reference.elu(inputs[0], parameter, param, spec, result)
        return getattr(reference, activation)(inputs[0], parameter, param, result)

    PARAMETRIZED_ACTIVATION = element_wise(
        'ParametrizedActivation',
        {'result': 'auto', 'param': 'auto', 'table': DEFAULT_TABLE_PRECISION},
        config_keys=(*COMMON_KEYS, *TABLE_KEYS),
        precision_rule=_parametrized_types,
        reference=_parametrized_reference,
        settings=('table_size',),
        choices={'activation': PARAMETRIZED_ACTIVATIONS},
        tables=function_table,
    )

    # ---- PReLU: x or alpha_j * x, one alpha per element ---------------------------------------------

    @staticmethod
    def _prelu_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        if is_auto(layer.types['param']):
            layer.types['param'] = fitted_type(layer.weights['alpha'], default_width(context))

    @staticmethod
    def _prelu_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        alpha = weights_of(layer, 'alpha', 'param', family)
        return reference.prelu(inputs[0], alpha, layer.types['result'])

    PRELU = element_wise(
        'PReLU',
        {'result': 'auto', 'param': 'auto'},
        precision_rule=_prelu_types,
        reference=_prelu_reference,
        weights=('alpha',),
        weight_shapes=shapes.per_element_weights('alpha'),
    )

    # ---- HardActivation: hard sigmoid, clip(slope * x + shift, 0, 1) --------------------------------

    @staticmethod
    def _hard_activation_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        if is_auto(layer.types['param']):
            values = np.array([layer.attributes['slope'], layer.attributes['shift']])
            layer.types['param'] = fitted_type(values, default_width(context))

    @staticmethod
    def _hard_activation_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        slope, shift = layer.attributes['slope'], layer.attributes['shift']
        return reference.hard_sigmoid(inputs[0], slope, shift, layer.types['param'], layer.types['result'])

    HARD_ACTIVATION = element_wise(
        'HardActivation',
        {'result': 'auto', 'param': 'auto'},
        precision_rule=_hard_activation_types,
        reference=_hard_activation_reference,
    )

    # ---- Softmax: exp tables, a sum, a reciprocal table (docs/kernels.md) ----------------------------

    @staticmethod
    def _softmax_tables(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
        """HGQ2's own tables (weights 'exp_table', 'inv_table'; 'stable' only), none for argmax, else
        the tables chosen from the types."""
        implementation, types = layer.attributes['implementation'], layer.types
        if 'exp_table' in layer.weights:
            if implementation != 'stable':
                raise ValueError(
                    f"{layer.describe()}: its tables were computed for the 'stable' implementation, "
                    f"not {implementation!r}; remove 'Implementation' from its config"
                )
            return explicit_tables(layer, ('exp_', 'inv_'))
        if implementation == 'argmax':
            return {}
        size = layer.attributes.get('table_size', 1024)
        exp_spec, inv_spec = softmax_tables(
            source, types['exp_table'], types['inv_table'], types['accum'], softmax_row(layer), size, implementation
        )
        return {'exp_': exp_spec, 'inv_': inv_spec}

    @staticmethod
    def _softmax_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        implementation, result, accum = layer.attributes['implementation'], layer.types['result'], layer.types['accum']
        row = softmax_row(layer)
        if implementation == 'argmax':
            return reference.softmax_argmax(inputs[0], result, n_slice=row)
        tables = Activations._softmax_tables(layer, fixed_input_type(graph, layer))
        if implementation == 'stable':
            max_minus_x = bool(layer.attributes.get('max_minus_x'))  # HGQ2's QSoftmax tables
            return reference.softmax_stable(
                inputs[0], tables['exp_'], tables['inv_'], accum, result, n_slice=row, max_minus_x=max_minus_x
            )
        return reference.softmax_latency(inputs[0], tables['exp_'], tables['inv_'], accum, result, n_slice=row)

    SOFTMAX = element_wise(
        'Softmax',
        SOFTMAX_TYPES,
        config_keys=(*COMMON_KEYS, *TABLE_KEYS, 'Implementation', 'Skip'),
        precision_rule=keep_config,
        reference=_softmax_reference,
        settings=('table_size', 'implementation', 'skip'),
        choices={'implementation': SOFTMAX_IMPLEMENTATIONS},
        # hls4ml's softmax has a 'table' and an 'inv_inp' type that this kernel does not use: the
        # sum is kept in accum and indexes inv_table exactly (see docs/kernels.md)
        ignored_precisions=('table', 'inv_inp'),
        tables=_softmax_tables,
    )
