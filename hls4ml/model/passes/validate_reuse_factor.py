"""Check every layer's ReuseFactor; snap impossible Resource values to the nearest valid one."""

from __future__ import annotations

import math

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import CONVOLUTIONS, DEPTHWISE_CONVOLUTIONS, Kind
from hls4ml.model.kinds.attention import graph_plan
from hls4ml.model.kinds.experts import moe_matrices
from hls4ml.model.passes import PassContext


def valid_reuse_factors(n_in: int, n_out: int) -> list[int]:
    """Reuse factors the Resource dense kernel accepts for an n_in x n_out weight matrix.

    Each of the n_in*n_out/RF multipliers is used RF times, so RF divides n_in*n_out; a block of
    multiplies may not straddle inputs unevenly: RF < n_in with whole output rows per block, or
    RF a multiple of n_in.
    """
    total = n_in * n_out
    valid = []
    for factor in range(1, total + 1):
        if total % factor:
            continue
        if (factor < n_in and math.ceil(total / factor) % n_out == 0) or (factor >= n_in and factor % n_in == 0):
            valid.append(factor)
    return valid


def nearest(requested: int, choices: list[int]) -> int:
    """The valid value closest to `requested`; the smaller one on a tie."""
    return min(choices, key=lambda factor: (abs(factor - requested), factor))


def validate_reuse_factor(graph: Graph, context: PassContext) -> None:
    """Requires: layer attributes `reuse_factor`, `strategy` (and `parallelization_factor`) from the
    config. After: every Dense and convolution has a reuse factor its strategy can implement: Resource
    values are snapped to the nearest valid one (with a warning saying so), Latency values above the
    multiply count are lowered to it; a convolution's ParallelizationFactor divides its output pixels
    (else the nearest divisor is taken, with a warning); an Einsum or EinsumDense takes any value up
    to its product count, and so does a Resource SOM, ReSOM or ReSOMMaps (`folded_terms`). A convolution's matrix is
    (filt_height * filt_width * n_chan) x n_filt (per channel for a depthwise one); a SOM with
    Implementation 'dense' has the n_in x n_units matrix of its scores; a MoE takes any RF up to its
    smaller expert product (n_in x n_out, or n_in x n_hidden and n_hidden x n_out).
    """
    for layer in graph.layers.values():
        if layer.kind == Kind.DENSE:
            _check_matrix(layer, layer.attributes['n_in'], layer.attributes['n_out'], context)
        elif layer.kind == Kind.MOE:  # any RF up to the smaller expert product (nnet::dense takes partial blocks)
            products = min(rows * cols for rows, cols in moe_matrices(layer))
            _check_matrix(layer, products, 1, context, any_factor=True)
        elif layer.kind == Kind.SOM and layer.attributes.get('implementation') == 'dense':
            _check_matrix(layer, layer.attributes['n_in'], layer.attributes['n_units'], context)
        elif layer.kind in (Kind.SOM, Kind.RESOM, Kind.RESOM_MAPS) and layer.attributes.get('strategy') == 'resource':
            _check_fold(layer, context)
        elif layer.kind in (Kind.EINSUM, Kind.EINSUM_DENSE):  # any RF up to the products (a partial last block)
            _check_matrix(layer, graph_plan(graph, layer).products, 1, context, any_factor=True)
        elif layer.kind in CONVOLUTIONS:
            attributes = layer.attributes
            window = attributes['filt_width'] * attributes.get('filt_height', 1)
            depthwise = layer.kind in DEPTHWISE_CONVOLUTIONS
            _check_matrix(layer, window * (1 if depthwise else attributes['n_chan']), attributes['n_filt'], context)
            _check_parallelization(layer, context)


def folded_terms(layer: Layer) -> int:
    """The terms of the largest stage a Resource SOM, ReSOM or ReSOMMaps folds by its reuse factor
    (nnet_som.h som_fold): n_units * n_in distance terms per map and, for source 'all', the lateral
    products: n_units_x * n_units_y (ReSOM), or the n_units^2 entries of the block matrix L of all the
    maps' units (ReSOMMaps). Any reuse factor up to it is valid (a partial last block)."""
    attributes = layer.attributes
    if layer.kind == Kind.SOM:
        return attributes['n_units'] * attributes['n_in']
    if layer.kind == Kind.RESOM_MAPS:
        units = attributes['map_units']
        terms = [n * width for n, width in zip(units, attributes['map_inputs'], strict=True)]
        return max(terms + [sum(units) ** 2] * (attributes['source'] == 'all'))
    terms = [attributes['n_units_x'] * attributes['n_in'], attributes['n_units_y'] * attributes['n_in_y']]
    if attributes['source'] == 'all':
        terms.append(attributes['n_units_x'] * attributes['n_units_y'])
    return max(terms)


def _check_fold(layer: Layer, context: PassContext) -> None:
    terms, requested = folded_terms(layer), layer.attributes['reuse_factor']
    if requested > terms:
        context.warn(
            f'{layer.describe()}: ReuseFactor {requested} exceeds the {terms} terms of its largest folded stage '
            f'(Resource {layer.kind}); using {terms} instead'
        )
        layer.attributes['reuse_factor'] = terms


def _check_parallelization(layer: Layer, context: PassContext) -> None:
    pixels = layer.attributes['out_width'] * layer.attributes.get('out_height', 1)
    requested = layer.attributes['parallelization_factor']
    chosen = nearest(requested, [factor for factor in range(1, pixels + 1) if pixels % factor == 0])
    if chosen != requested:
        context.warn(
            f'{layer.describe()}: ParallelizationFactor {requested} does not divide its {pixels} output pixels; '
            f'using {chosen} instead'
        )
        layer.attributes['parallelization_factor'] = chosen


def _check_matrix(layer: Layer, n_in: int, n_out: int, context: PassContext, any_factor: bool = False) -> None:
    requested = layer.attributes['reuse_factor']
    if layer.attributes['strategy'] == 'resource' and not any_factor:
        chosen = nearest(requested, valid_reuse_factors(n_in, n_out))
    else:
        chosen = min(requested, n_in * n_out)
    if chosen != requested:
        context.warn(
            f'{layer.describe()}: ReuseFactor {requested} is not valid for a {n_in}x{n_out} '
            f'{layer.attributes["strategy"].capitalize()} {layer.kind}; using {chosen} instead'
        )
        layer.attributes['reuse_factor'] = chosen
