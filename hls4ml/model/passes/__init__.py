"""Graph passes: one file, one verb-named function `name(graph, context)`; the order lives in `flow.py`.

How to write one: take a `Graph` and a `PassContext`, edit the graph in place through its methods
(`remove_layer`, layer `types`/`attributes`/`weights`), and say in the docstring what the pass
requires and what holds after it. Raise `ValueError` naming the layer for anything it cannot do.
"""

from hls4ml.model.pass_context import DEFAULT_MAXIMUM_PRECISION, PassContext

__all__ = ['DEFAULT_MAXIMUM_PRECISION', 'PassContext']
