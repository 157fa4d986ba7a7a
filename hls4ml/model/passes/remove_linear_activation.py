"""Remove linear activations (identity) that do not change the type of their input."""

from __future__ import annotations

from hls4ml.model.ir import Graph
from hls4ml.model.kinds import Kind
from hls4ml.model.passes import PassContext
from hls4ml.model.types import UnspecifiedPrecisionType


def remove_linear_activation(graph: Graph, context: PassContext) -> None:
    """Requires: types from the config. After: no Activation('linear') whose result type is 'auto' or
    equal to its input's type; a linear activation with another explicit type stays, as the
    requantization the user asked for. Model outputs and traced layers are kept.
    """
    for layer in list(graph.layers.values()):
        if layer.kind != Kind.ACTIVATION or layer.attributes.get('activation') != 'linear':
            continue
        result = layer.types['result']
        same_type = isinstance(result, UnspecifiedPrecisionType) or result == graph.input_type(layer)
        if same_type and layer.outputs[0] not in graph.outputs and not layer.attributes.get('trace'):
            graph.remove_layer(layer)
