"""Remove softmax layers the config marks `Skip: True` (hls4ml 1.x): the model then outputs the logits."""

from __future__ import annotations

from hls4ml.model.ir import Graph
from hls4ml.model.kinds import Kind
from hls4ml.model.passes import PassContext


def skip_softmax(graph: Graph, context: PassContext) -> None:
    """Requires: the `skip` attribute from the config. After: no Softmax with skip=True remains; its
    consumers (or the model output) read its input, whose order of values is the same.
    """
    for layer in list(graph.layers.values()):
        if layer.kind == Kind.SOFTMAX and layer.attributes.get('skip'):
            graph.remove_layer(layer)
