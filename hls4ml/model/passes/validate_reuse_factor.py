"""Check every layer's ReuseFactor; snap impossible Resource values to the nearest valid one."""

from __future__ import annotations

import math

from hls4ml.model.ir import Graph, Layer
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
    """Requires: layer attributes `reuse_factor` and `strategy` from the config. After: every Dense has
    a reuse factor its strategy can implement: Resource values are snapped to the nearest valid one
    (with a warning saying so), Latency values above n_in*n_out are lowered to n_in*n_out.
    """
    for layer in graph.layers.values():
        if layer.kind == 'Dense':
            _check_dense(layer, context)


def _check_dense(layer: Layer, context: PassContext) -> None:
    n_in, n_out = layer.attributes['n_in'], layer.attributes['n_out']
    requested = layer.attributes['reuse_factor']
    if layer.attributes['strategy'] == 'resource':
        chosen = nearest(requested, valid_reuse_factors(n_in, n_out))
    else:
        chosen = min(requested, n_in * n_out)
    if chosen != requested:
        context.warn(
            f'{layer.describe()}: ReuseFactor {requested} is not valid for a {n_in}x{n_out} '
            f'{layer.attributes["strategy"].capitalize()} dense; using {chosen} instead'
        )
        layer.attributes['reuse_factor'] = chosen
