"""The conversion pipeline as one explicit, ordered list of named passes.

Set `HLS4ML_DUMP_PASSES=1` (or pass `dump=True`) to print the graph after each pass.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from hls4ml.model.ir import Graph, format_graph
from hls4ml.model.passes import PassContext
from hls4ml.model.passes.check_distributed import check_distributed
from hls4ml.model.passes.fifo_depths import fifo_depths
from hls4ml.model.passes.fuse_batchnorm import fuse_batchnorm
from hls4ml.model.passes.infer_precision import infer_precision
from hls4ml.model.passes.prepare_streams import prepare_streams
from hls4ml.model.passes.remove_linear_activation import remove_linear_activation
from hls4ml.model.passes.skip_softmax import skip_softmax
from hls4ml.model.passes.validate_reuse_factor import validate_reuse_factor
from hls4ml.model.verify import verify

Pass = Callable[[Graph, PassContext], None]

CONVERT_FLOW: tuple[tuple[str, Pass], ...] = (
    ('fuse_batchnorm', fuse_batchnorm),
    ('remove_linear_activation', remove_linear_activation),
    ('skip_softmax', skip_softmax),
    ('infer_precision', infer_precision),
    ('validate_reuse_factor', validate_reuse_factor),
    ('check_distributed', check_distributed),
    ('prepare_streams', prepare_streams),
    ('fifo_depths', fifo_depths),
)


def run_flow(graph: Graph, context: PassContext, flow=CONVERT_FLOW, dump: bool | None = None) -> list[str]:
    """Apply the passes in order, then verify the graph; returns the names of the passes applied."""
    dump = os.environ.get('HLS4ML_DUMP_PASSES', '') not in ('', '0') if dump is None else dump
    applied = []
    for name, apply in flow:
        try:
            apply(graph, context)
        except ValueError as error:
            raise ValueError(f'pass {name}: {error}') from error
        applied.append(name)
        if dump:
            print(f'--- after {name} ---\n{format_graph(graph)}')
    verify(graph)
    return applied
