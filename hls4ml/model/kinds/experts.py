"""Mixtures of experts whose experts live inside the layer (docs/moe.md, "Conditional experts").

`MoE`: y = sum over the k experts routed for the token of gate_e * f_e(x), f_e linear (x W_e + b_e) or,
with n_hidden > 0, a two-layer FFN (relu(x W_e + b_e) W2_e + b2_e). Its inputs are the
token features x and the router logits (the gate Dense's output); routing is the Router's token
choice (`nnet_router.h`, `reference/router.py`, unchanged), and only the k routed experts' products
are computed: k banks of multipliers whose weights are selected from the E experts' weight sets.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.activations import DEFAULT_SOFTMAX_PRECISION
from hls4ml.model.kinds.record import PRODUCT_KEYS, PRODUCT_SETTINGS, KindRecord
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import fit_weights, input_fixed, is_auto, magnitude, quantized_weights, sum_type
from hls4ml.model.reference.moe import moe
from hls4ml.model.tables import TableSpec, softmax_tables
from hls4ml.model.types import FixedPrecisionType

# the gates lie in [0, 1] (up to the tables' rounding): one integer bit, unsigned, rounded and saturated;
# 11 fraction bits, finer than the 2^-7 the 1024-entry tables give, and one 18-bit DSP port
DEFAULT_GATE_PRECISION = 'ufixed<12,1,RND,SAT>'
MOE_TYPES = {
    'result': 'auto',
    'accum': 'auto',  # each expert's accumulator and output
    'weight': 'auto',
    'bias': 'auto',
    'gate': DEFAULT_GATE_PRECISION,
    'exp_table': DEFAULT_SOFTMAX_PRECISION,
    'inv_table': DEFAULT_SOFTMAX_PRECISION,
    'gate_accum': DEFAULT_SOFTMAX_PRECISION,  # the router's sum of exponentials
    'hidden': 'auto',  # FFN experts: the first product and its ReLU
    'weight2': 'auto',  # FFN experts: the second product's weights
    'bias2': 'auto',
}


def logits_type(graph: Graph, layer: Layer) -> FixedPrecisionType:
    """The type of the router logits (the layer's second input), which the gate tables are built for."""
    precision = graph.input_type(layer, 1)
    assert isinstance(precision, FixedPrecisionType), f'{layer.describe()}: router logits of type {precision}'
    return precision


def moe_tables(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
    """The Router's stable-softmax tables over the logits (`source`): sums of k (renormalize) or E values."""
    attributes, types = layer.attributes, layer.types
    n_values = attributes['k'] if attributes['renormalize'] else attributes['n_experts']
    size = attributes.get('table_size', 1024)
    exp_spec, inv_spec = softmax_tables(
        source, types['exp_table'], types['inv_table'], types['gate_accum'], n_values, size, 'stable'
    )
    return {'exp_': exp_spec, 'inv_': inv_spec}


def _fail(layer: Layer, problem: str) -> ValueError:
    return ValueError(f'{layer.describe()}: {problem}')


def moe_weights(layer: Layer) -> dict[str, tuple[int, ...]]:
    """Linear experts: weight (E, n_in, n_out), bias (E, n_out); FFN experts (n_hidden > 0): weight
    (E, n_in, n_hidden), bias (E, n_hidden), weight2 (E, n_hidden, n_out), bias2 (E, n_out)."""
    attributes = layer.attributes
    experts, n_in, n_out = attributes['n_experts'], attributes['n_in'], attributes['n_out']
    hidden = attributes.get('n_hidden', 0)
    if not hidden:
        return {'weight': (experts, n_in, n_out), 'bias': (experts, n_out)}
    first = {'weight': (experts, n_in, hidden), 'bias': (experts, hidden)}
    return {**first, 'weight2': (experts, hidden, n_out), 'bias2': (experts, n_out)}


def moe_matrices(layer: Layer) -> list[tuple[int, int]]:
    """The (rows, cols) of each expert product: one (linear experts) or two (FFN experts)."""
    attributes = layer.attributes
    n_in, n_out, hidden = attributes['n_in'], attributes['n_out'], attributes.get('n_hidden', 0)
    return [(n_in, hidden), (hidden, n_out)] if hidden else [(n_in, n_out)]


def _stage_type(
    layer: Layer, source: FixedPrecisionType, names: tuple[str, str], context: PassContext
) -> FixedPrecisionType | None:
    """The overflow-free sum type of one expert product x W_e + b_e over every expert (its weights fitted)."""
    fit_weights(layer, names, context)
    weight, bias = (layer.types[name] for name in names)
    if not (isinstance(weight, FixedPrecisionType) and isinstance(bias, FixedPrecisionType)):
        return None
    factors, biases = (quantized_weights(layer, name) for name in names)
    bound = float((np.abs(factors).sum(axis=1) * magnitude(source) + np.abs(biases)).max(initial=0.0))
    signed = source.signed or bool((factors < 0).any()) or bool((biases < 0).any())
    fraction = max(source.fractional + weight.fractional, bias.fractional)
    return sum_type(fraction, bound, signed, context)


def _set_auto(layer: Layer, var: str, precision: FixedPrecisionType | None) -> FixedPrecisionType | None:
    if is_auto(layer.types[var]) and precision is not None:
        layer.types[var] = precision
    found = layer.types[var]
    return found if isinstance(found, FixedPrecisionType) else None


def moe_shape(layer: Layer, inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
    """(..., n_out) from features (..., n_in) and logits (..., n_experts) with the same leading axes."""
    attributes = layer.attributes
    features, logits = inputs
    n_in, experts, k = attributes['n_in'], attributes['n_experts'], attributes['k']
    if not features or features[-1] != n_in:
        raise _fail(layer, f'the experts take rows of {n_in} features (the last axis), got shape {features}')
    if tuple(logits) != (*features[:-1], experts):
        raise _fail(layer, f'router logits of shape {logits} do not match features {features}, {experts} experts')
    if not 1 <= k <= experts:
        raise _fail(layer, f'k={k} must be between 1 and the {experts} experts')
    return (*features[:-1], attributes['n_out'])


class Experts:
    """The mixture-of-experts kinds (`Kind` inherits them)."""

    # ---- MoE: token choice over E Dense experts, only the k routed ones computed ---------------------

    @staticmethod
    def _moe_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Weights fitted over every expert; `hidden` (FFN experts: the first product, then ReLU) and
        `accum` (each expert's output) overflow-free for the largest expert; the result overflow-free
        for k gates (each below the gate type's maximum) times that output. Linear experts alias the
        second stage's types to the first's, which the config struct still declares."""
        source, gate = input_fixed(graph, layer, context), layer.types['gate']
        if source is None or not isinstance(gate, FixedPrecisionType):
            return
        if layer.attributes.get('n_hidden', 0):
            hidden = _set_auto(layer, 'hidden', _stage_type(layer, source, ('weight', 'bias'), context))
            stage = None if hidden is None else _stage_type(layer, hidden, ('weight2', 'bias2'), context)
            accum = _set_auto(layer, 'accum', stage)
        else:
            accum = _set_auto(layer, 'accum', _stage_type(layer, source, ('weight', 'bias'), context))
            for alias, original in (('hidden', 'accum'), ('weight2', 'weight'), ('bias2', 'bias')):
                precision = layer.types[original]
                _set_auto(layer, alias, precision if isinstance(precision, FixedPrecisionType) else None)
        if accum is not None:
            outer = layer.attributes['k'] * gate.max * magnitude(accum)
            _set_auto(layer, 'result', sum_type(accum.fractional + gate.fractional, outer, accum.signed, context))

    @staticmethod
    def _moe_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        attributes, types = layer.attributes, layer.types
        tables = moe_tables(layer, logits_type(graph, layer))
        names = [('weight', 'bias'), ('weight2', 'bias2')][: 2 if attributes.get('n_hidden', 0) else 1]
        stages = [
            (quantize(layer.weights[weight], types[weight], family), quantize(layer.weights[bias], types[bias], family))
            for weight, bias in names
        ]
        features, logits = inputs
        return moe(features, logits, stages, attributes['k'], attributes['renormalize'], tables, types)

    MOE = KindRecord(
        'MoE',
        types=MOE_TYPES,
        config_keys=(*PRODUCT_KEYS, 'TableSize'),
        output_shape=moe_shape,
        precision_rule=_moe_types,
        reference=_moe_reference,
        weights=('weight', 'bias', 'weight2', 'bias2'),
        settings=(*PRODUCT_SETTINGS, 'table_size'),
        weight_shapes=moe_weights,
        tables=moe_tables,
    )
