"""Sequence layers: kinds that act on the rows (tokens) of a (..., n) tensor, as transformers use
them. Each kind is one block of `Sequence`: its rules, its reference kernel, its record.
docs/sequence.md describes them and derives their error bounds."""

from __future__ import annotations

import math

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, KindRecord, element_wise, weights_of
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import (
    default_width,
    fitted_type,
    input_fixed,
    integer_bits,
    is_auto,
    magnitude,
    sum_type,
)
from hls4ml.model.reference.embedding import embedding
from hls4ml.model.reference.layernorm import LayerNormTypes, layernorm
from hls4ml.model.types import FixedPrecisionType

LAYERNORM_INTERNALS = ('sum', 'diff', 'variance', 'root', 'norm', 'count')


def exact_type(fraction: int, bound: float, signed: bool) -> FixedPrecisionType:
    """The type holding every value of magnitude <= bound on a grid of 2**-fraction (never capped:
    an intermediate value of an exact computation)."""
    integer = integer_bits(-bound if signed else 0.0, bound, signed)
    return FixedPrecisionType(integer + fraction, integer, signed)


def layernorm_internals(x: FixedPrecisionType, n: int, epsilon: float, width: int) -> dict[str, FixedPrecisionType]:
    """The kernel's intermediate types for rows of n values of type x (reference/layernorm.py):
    S, D and V exact; root and norm with enough bits for |norm - exact| <= 1.5 * 2**-F, F the
    fraction of norm (width bits, the integer part holding sqrt(n)); docs/sequence.md derives it."""
    fraction, spread = x.fractional, x.max - x.min
    norm_integer = math.ceil(math.log2(math.sqrt(n))) + 2  # |norm| <= sqrt(n - 1), one bit to spare
    norm_fraction = max(width - norm_integer, 1)
    floor_term = epsilon * n**4  # V >= eps n^4: the root's and the epsilon term's precision follow it
    extra = math.ceil(math.log2(math.sqrt(n) / math.sqrt(floor_term))) if floor_term > 0 else fraction
    # eps n^4 is written with an error below 2**-(F+5) / sqrt(n) of V: it moves norm by < 2**-(F+5)
    floor_bits = math.ceil(-math.log2(floor_term)) if floor_term > 0 else 0
    variance_fraction = max(2 * fraction, floor_bits + norm_fraction + 4 + math.ceil(math.log2(math.sqrt(n))))
    variance_bound = n**4 * (spread**2 / 4 + epsilon)
    return {
        'count': FixedPrecisionType(n.bit_length(), n.bit_length(), False),
        'sum': exact_type(fraction, n * magnitude(x), True),
        'diff': exact_type(fraction, n * spread, True),
        'variance': exact_type(variance_fraction, variance_bound, False),
        'root': exact_type(max(fraction, norm_fraction + 2 + extra), math.sqrt(variance_bound), False),
        'norm': FixedPrecisionType(norm_integer + norm_fraction, norm_integer, True),
    }


class Sequence:
    """The sequence kinds (`Kind` inherits them)."""

    # ---- LayerNormalization: (x - mean) / sqrt(var + eps) * scale + bias over rows of n_slice -------

    @staticmethod
    def _layernorm_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        width, types = default_width(context), layer.types
        for name in ('scale', 'bias'):
            if is_auto(types[name]):
                types[name] = fitted_type(layer.weights[name], width)
        source = input_fixed(graph, layer, context)
        if source is None:
            return
        n, epsilon = layer.attributes['n_slice'], layer.attributes['epsilon']
        for name, precision in layernorm_internals(source, n, epsilon, width).items():
            if is_auto(types[name]):
                types[name] = precision
        scale, bias, norm = types['scale'], types['bias'], types['norm']
        if is_auto(types['result']) and all(isinstance(t, FixedPrecisionType) for t in (scale, bias, norm)):
            assert isinstance(scale, FixedPrecisionType) and isinstance(bias, FixedPrecisionType)
            assert isinstance(norm, FixedPrecisionType)
            bound = magnitude(norm) * float(abs(layer.weights['scale']).max()) + float(abs(layer.weights['bias']).max())
            fraction = max(norm.fractional + scale.fractional, bias.fractional)
            types['result'] = sum_type(fraction, bound, True, context)

    @staticmethod
    def _layernorm_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        types = LayerNormTypes(**{name: layer.types[name] for name in LAYERNORM_INTERNALS})  # type: ignore[arg-type]
        scale, bias = weights_of(layer, 'scale', 'scale', family), weights_of(layer, 'bias', 'bias', family)
        attributes = layer.attributes
        return layernorm(
            inputs[0], scale, bias, attributes['n_slice'], attributes['epsilon'], types, layer.types['result']
        )

    @staticmethod
    def _layernorm_weights(layer: Layer) -> dict[str, tuple[int, ...]]:
        return {'scale': (layer.attributes['n_slice'],), 'bias': (layer.attributes['n_slice'],)}

    LAYER_NORMALIZATION = element_wise(
        'LayerNormalization',
        {'result': 'auto', 'scale': 'auto', 'bias': 'auto', **{name: 'auto' for name in LAYERNORM_INTERNALS}},
        config_keys=(*COMMON_KEYS, 'ReuseFactor'),
        precision_rule=_layernorm_types,
        reference=_layernorm_reference,
        weights=('scale', 'bias'),
        weight_shapes=_layernorm_weights,
    )

    # ---- Embedding: each integer index selects a row of a (n_vocab, n_dim) table, a ROM ---------------

    @staticmethod
    def _embedding_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """The indices must be integers (an input type without fraction bits); the table is fitted to
        its values and the result is the table's type: a lookup is exact."""
        source = graph.input_type(layer)
        if not isinstance(source, FixedPrecisionType) or source.fractional > 0:
            raise ValueError(
                f'{layer.describe()}: an embedding reads integer indices, but its input type is {source}; give '
                "the layer that feeds it an integer precision, e.g. config['LayerName'][<input>]['Precision'] = "
                "'int<32>'"
            )
        if is_auto(layer.types['embeddings']):
            layer.types['embeddings'] = fitted_type(layer.weights['embeddings'], default_width(context))
        if is_auto(layer.types['result']):
            layer.types['result'] = layer.types['embeddings']

    @staticmethod
    def _embedding_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        table = weights_of(layer, 'embeddings', 'embeddings', family)
        return embedding(inputs[0], table, layer.attributes['n_dim'], layer.types['result'])

    @staticmethod
    def _embedding_shape(layer: Layer, inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
        return (*inputs[0], layer.attributes['n_dim'])

    @staticmethod
    def _embedding_weights(layer: Layer) -> dict[str, tuple[int, ...]]:
        return {'embeddings': (layer.attributes['n_vocab'], layer.attributes['n_dim'])}

    EMBEDDING = KindRecord(
        'Embedding',
        types={'result': 'auto', 'embeddings': 'auto'},
        config_keys=COMMON_KEYS,
        output_shape=_embedding_shape,
        precision_rule=_embedding_types,
        reference=_embedding_reference,
        weights=('embeddings',),
        weight_shapes=_embedding_weights,
    )
