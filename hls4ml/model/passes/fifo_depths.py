"""io_stream only: the depth of every FIFO, from the dataflow rather than left at the maximum.

The rule (a model of the dataflow at one stream element per cycle):
* a tensor is a stream of elements of `stream_pack(shape)` values (all channels of one position;
  a vector is one element);
* every layer needs `startup(layer)` input elements before it emits its first output element: a
  line-buffer window (filt_height - 1) * in_width + filt_width, a 1-D window filt_width, global
  pooling and transpose everything, a repack ceil(out_pack / in_pack), everything else 1;
* a layer starts when its LAST input begins to arrive; its output's first element appears
  `startup` cycles later;
* a FIFO must hold what its producer sends while the consumer waits for its slowest other input:
  depth = 2 + (start of the consumer - first element of this FIFO), at most the tensor's element
  count, at least 2 (a chain of layers needs only the double buffer).
Skip connections therefore get deep FIFOs on the short branch, chains get depth 2.
"""

from __future__ import annotations

import math

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.passes import PassContext


def stream_pack(shape: tuple[int, ...]) -> int:
    """Values per stream element: the channels of one position (a vector travels as one element)."""
    return shape[-1] if len(shape) > 1 else math.prod(shape)


def elements(graph: Graph, tensor: str) -> int:
    shape = graph.tensors[tensor].shape
    return math.prod(shape) // stream_pack(shape)


def startup(graph: Graph, layer: Layer) -> int:
    attributes = layer.attributes
    kind = layer.kind
    if kind in (Kind.CONV2D, Kind.DEPTHWISE_CONV2D, Kind.POOLING2D):
        height = attributes.get('filt_height', attributes.get('pool_height', 1))
        width = attributes.get('filt_width', attributes.get('pool_width', 1))
        return (height - 1) * attributes['in_width'] + width
    if kind in (Kind.CONV1D, Kind.DEPTHWISE_CONV1D, Kind.POOLING1D):
        return attributes.get('filt_width', attributes.get('pool_width', 1))
    if kind in (Kind.GLOBAL_POOLING1D, Kind.GLOBAL_POOLING2D, Kind.TRANSPOSE, Kind.GATHER, Kind.REDUCE):
        return elements(graph, layer.inputs[0])
    if kind == Kind.RESIZE2D:
        return attributes['in_width']
    if kind == Kind.RESHAPE:
        source = stream_pack(graph.tensors[layer.inputs[0]].shape)
        return math.ceil(stream_pack(graph.tensors[layer.outputs[0]].shape) / source)
    return 1


def fifo_depths(graph: Graph, context: PassContext) -> None:
    """Requires: the final io_stream graph (clones inserted). After: every tensor has `fifo_depth` >= 2."""
    if context.io_type != 'io_stream':
        return
    first_element = dict.fromkeys(graph.inputs, 0)
    for layer in graph.layers.values():
        if not layer.inputs:
            continue
        begin = max(first_element[tensor] for tensor in layer.inputs)
        for tensor in layer.inputs:
            wait = begin - first_element[tensor]
            graph.tensors[tensor].fifo_depth = max(2, min(elements(graph, tensor), wait + 2))
        for tensor in layer.outputs:
            first_element[tensor] = begin + startup(graph, layer)
    for tensor in graph.outputs:
        graph.tensors[tensor].fifo_depth = max(graph.tensors[tensor].fifo_depth, 2)
