"""io_stream only: make 'same' padding explicit and give every tensor with several readers a Clone."""

from __future__ import annotations

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import CONVOLUTIONS, LAYER_KINDS, Kind
from hls4ml.model.passes import PassContext

PADDED_KINDS = CONVOLUTIONS
MAX_CLONE_OUTPUTS = 3  # nnet::clone writes two or three streams
PADS = ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')


def prepare_streams(graph: Graph, context: PassContext) -> None:
    """Requires: a typed graph. After (io_stream only): no convolution reads padding (a ZeroPadding
    layer `<name>_pad` in front supplies it, so the line-buffer kernels see valid windows only), and
    every tensor read by n > 1 layers feeds a Clone layer `<tensor>_clone` with n outputs, one per reader
    (a stream can be read once). Pooling keeps its padding: the streaming kernel skips padded positions,
    which must not enter maxima or averages.
    """
    if context.io_type != 'io_stream':
        return
    for layer in list(graph.layers.values()):
        if layer.kind in PADDED_KINDS and any(layer.attributes.get(name, 0) for name in PADS):
            _pad_explicitly(graph, layer)
    for name in list(graph.tensors):
        uses = [
            (reader, index)
            for reader in graph.layers.values()
            for index, tensor in enumerate(reader.inputs)
            if tensor == name
        ]
        if len(uses) > 1 or (uses and name in graph.outputs):
            _clone(graph, name, uses)


def _unique(graph: Graph, base: str) -> str:
    name, counter = base, 1
    while name in graph.layers or name in graph.tensors:
        counter += 1
        name = f'{base}_{counter}'
    return name


def _pad_explicitly(graph: Graph, layer: Layer) -> None:
    attributes = layer.attributes
    two_d = 'in_height' in attributes
    pads = {name: attributes[name] for name in PADS if name in attributes}
    name = _unique(graph, f'{layer.name}_pad')
    padding = Layer(
        name,
        Kind.ZERO_PADDING2D if two_d else Kind.ZERO_PADDING1D,
        list(layer.inputs),
        [name],
        {'n_chan': attributes['n_chan'], 'in_width': attributes['in_width'], **pads},
        types={'result': graph.input_type(layer)},
    )
    padding.attributes['out_width'] = attributes['in_width'] + pads['pad_left'] + pads['pad_right']
    if two_d:
        padding.attributes['in_height'] = attributes['in_height']
        padding.attributes['out_height'] = attributes['in_height'] + pads['pad_top'] + pads['pad_bottom']
        attributes['in_height'] = padding.attributes['out_height']
    attributes['in_width'] = padding.attributes['out_width']
    shape = LAYER_KINDS[padding.kind].output_shape(padding, [graph.tensors[layer.inputs[0]].shape])
    graph.insert_layer(padding, [shape], before=layer.name)
    layer.inputs = [padding.name]
    attributes.update(dict.fromkeys(pads, 0))


def _clone(graph: Graph, name: str, uses: list[tuple[Layer, int]]) -> None:
    """One Clone per tensor; the kernel writes at most MAX_CLONE_OUTPUTS streams, so a wider fan-out
    chains clones (the last copy of each feeds the next)."""
    is_output = name in graph.outputs
    copies = len(uses) + is_output
    chained = copies > MAX_CLONE_OUTPUTS
    direct = uses[: MAX_CLONE_OUTPUTS - 1] if chained else uses
    clone_name = _unique(graph, f'{name}_clone')
    width = MAX_CLONE_OUTPUTS if chained else copies
    outputs = [_unique(graph, f'{name}_cpy{index}') for index in range(1, width + 1)]
    clone = Layer(
        clone_name,
        Kind.CLONE,
        [name],
        outputs,
        {'n_elem': graph.tensors[name].size},
        types={'result': graph.producer(name).types['result']},
    )
    graph.insert_layer(clone, [graph.tensors[name].shape] * width, before=uses[0][0].name)
    for (reader, index), copy in zip(direct, outputs, strict=False):
        reader.inputs[index] = copy
    if is_output:
        graph.outputs = [outputs[-1] if tensor == name else tensor for tensor in graph.outputs]
    if chained:
        _clone(graph, outputs[-1], uses[MAX_CLONE_OUTPUTS - 1 :])
