"""Small real models for the estimator tests, built through the GraphBuilder and the conversion flow.

Weights are chosen by their raw integers so that every multiplier's width and constant digits are
known by hand: `WIDE` (21867 = 0b101010101101011) is odd with 8 nonzero signed digits, so a product
by it is a 16 x 16 constant multiplier that goes to a DSP.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.converters.builder import GraphBuilder, Origin, Value
from hls4ml.model.graph import ModelGraph
from hls4ml.utils.config import create_config

WIDE = 21867
FRACTION_BITS = 10  # fixed<16,6>


def raw_weights(raw: np.ndarray, fraction_bits: int = FRACTION_BITS) -> np.ndarray:
    """Float weights whose fixed-point raw integers are exactly `raw`."""
    return np.asarray(raw, dtype=np.float64) / 2.0**fraction_bits


def convert(
    builder: GraphBuilder,
    layers: dict[str, dict[str, Any]] | None = None,
    *,
    backend: str = 'Vitis',
    io_type: str = 'io_parallel',
    precision: str = 'fixed<16,6>',
    **backend_options: Any,
) -> ModelGraph:
    graph, origin = builder.finish()
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', backend, io_type=io_type, **backend_options)
    config['HLSConfig'] = {'Model': {'Precision': precision, 'ReuseFactor': 1}, 'LayerName': layers or {}}
    return ModelGraph(config, graph, origin)


def dense_builder(weights: np.ndarray, activation: str | None = None) -> tuple[GraphBuilder, Value]:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (weights.shape[0],))
    y = builder.dense(Origin('fc', 'Dense'), x, weights, None)
    if activation:
        y = builder.activation(Origin('act', 'Activation'), y, activation)
    return builder, y


def dense_model(
    weights: np.ndarray,
    *,
    reuse_factor: int = 1,
    strategy: str = 'Latency',
    types: dict[str, str] | None = None,
    **options: Any,
) -> ModelGraph:
    """x -> Dense(weights, zero bias): 16-bit data and weights and a 40-bit accumulator unless `types`."""
    builder, y = dense_builder(weights)
    builder.output(y, Origin('y', 'output'))
    precisions = {'weight': 'fixed<16,6>', 'bias': 'fixed<16,6>', 'accum': 'fixed<40,16>', 'result': 'fixed<40,16>'}
    precisions.update(types or {})
    settings = {'ReuseFactor': reuse_factor, 'Strategy': strategy, 'Precision': precisions}
    return convert(builder, {'fc': settings}, **options)


def conv1d_model(n_chan: int, n_filt: int, width: int, window: int, raw: int, **settings: Any) -> ModelGraph:
    """x (n_chan, width) -> Conv1D with every weight = raw (fixed<16,6>), valid padding."""
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (n_chan, width))
    kernel = raw_weights(np.full((n_filt, n_chan, window), raw))
    y = builder.conv(Origin('conv', 'Conv1d'), x, kernel, None, (1,), [(0, 0)])
    builder.output(y, Origin('y', 'output'))
    precisions = {'weight': 'fixed<16,6>', 'bias': 'fixed<16,6>', 'accum': 'fixed<40,16>', 'result': 'fixed<40,16>'}
    return convert(builder, {'conv': {'Precision': precisions, **settings}})
