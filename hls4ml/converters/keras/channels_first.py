"""Keras spatial layers with `data_format='channels_first'`: the channels-last layer between two layout moves.

Every other Keras handler reads an IR tensor in Keras' own layout, so a channels-first layer keeps that
invariant: its input `(C, *spatial)` is moved to `(*spatial, C)` (`<name>_channels_last`), the handler
builds the channels-last layer(s) as usual, and their output is moved back to `(C, *spatial)`
(`<name>_channels_first`). A move is a Transpose, or a Reshape (no data moves) when only axes of size 1
change places (one channel, or a global pooling with keepdims). The moves keep their input's type (the
frontend presets them 'auto', so no Model precision rounds them). Two channels-first layers in a row give
a move back and a move forth between them; `cancel_layout_moves` joins the pair, so the channels-last
tensor passes straight from one layer to the next. docs/frontends.md.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from hls4ml.converters.keras.handlers import Handler, Source
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.types import UnspecifiedPrecisionType

LAYOUT_KINDS = (Kind.TRANSPOSE, Kind.RESHAPE)  # the kinds of the moves, which every wrapped handler may emit
SUFFIXES = ('_channels_last', '_channels_first')  # the layout moves' names: `<layer>_<suffix>`


def accepts_channels_first(handler: Handler) -> Handler:
    """`handler` (of a channels-last spatial layer) also converting the layer with data_format='channels_first'."""

    @functools.wraps(handler)
    def convert(source: Source) -> list[Layer]:
        if source.config.get('data_format', 'channels_last') != 'channels_first':
            return handler(source)
        shape = source.input_shapes[0]
        to_last = (*range(1, len(shape)), 0)
        before = layout_move(source, SUFFIXES[0], source.inputs[0], shape, to_last)
        inner_shape = tuple(shape[axis] for axis in to_last)
        config = {**source.config, 'data_format': 'channels_last'}
        layers = handler(Source(source.layer, source.name, [before.name], [inner_shape], config))
        out_shape = _chain_output_shape(layers, before.name, inner_shape)
        if len(out_shape) < 2:  # a global pooling without keepdims: a vector has no layout
            return [before, *layers]
        to_first = (len(out_shape) - 1, *range(len(out_shape) - 1))
        after = layout_move(source, SUFFIXES[1], layers[-1].outputs[0], out_shape, to_first)
        return [before, *layers, after]

    return convert


def layout_move(source: Source, suffix: str, tensor: str, shape: tuple[int, ...], perm: tuple[int, ...]) -> Layer:
    """`<name><suffix>`: `tensor` (of `shape`) with its axes in the order `perm`, keeping its input type."""
    moved = tuple(shape[axis] for axis in perm)
    if [axis for axis in perm if shape[axis] > 1] == [axis for axis in range(len(shape)) if shape[axis] > 1]:
        layer = source.make(Kind.RESHAPE, inputs=[tensor], target_shape=moved)
    else:
        layer = source.make(Kind.TRANSPOSE, inputs=[tensor], perm=perm)
    layer.name = layer.outputs[0] = f'{source.name}{suffix}'
    layer.source_class = ''  # the Keras layer's LayerType / LayerName entries are for the layer it wraps
    layer.types['result'] = UnspecifiedPrecisionType()  # preset 'auto': the input's type, whatever the config
    return layer


def _chain_output_shape(layers: list[Layer], first_input: str, first_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The output shape of the last of `layers`, which read `first_input` or one another."""
    shapes = {first_input: first_shape}
    for layer in layers:
        shapes[layer.outputs[0]] = LAYER_KINDS[layer.kind].output_shape(layer, [shapes[name] for name in layer.inputs])
    return shapes[layers[-1].outputs[0]]


def move_direction(layer: Layer, owner: str) -> int | None:
    """0 for a move to channels last that `accepts_channels_first` made for the layer named `owner` (its IR
    name), 1 for a move back, None for any other layer."""
    if layer.source_class or layer.kind not in LAYOUT_KINDS:
        return None
    names = [f'{owner}{suffix}' for suffix in SUFFIXES]
    return names.index(layer.name) if layer.name in names else None


def cancel_layout_moves(graph: Graph, moves: dict[str, int]) -> None:
    """Join each move to channels last that reads a move back to channels first (`moves`: layer name ->
    `move_direction`): its readers read the channels-last tensor before the pair, and a move back that
    nobody reads any more goes too."""
    for name in [name for name, direction in moves.items() if direction == 0 and name in graph.layers]:
        forth = graph.layers[name]
        back = graph.producer(forth.inputs[0])
        if moves.get(back.name) != 1 or not _inverse(graph, back, forth):
            continue
        forth.inputs = [back.inputs[0]]  # now the identity: its readers read the channels-last tensor
        graph.remove_layer(forth)
        if not graph.consumers(back.outputs[0]) and back.outputs[0] not in graph.outputs:
            graph.remove_layer(back)


def _order(layer: Layer, shape: tuple[int, ...]) -> np.ndarray:
    """The flat input position of each output value of a move (a Transpose or a Reshape) of an input of `shape`."""
    positions = np.arange(math.prod(shape)).reshape(shape)
    if layer.kind == Kind.TRANSPOSE:
        positions = positions.transpose(layer.attributes['perm'])
    return positions.reshape(-1)


def _inverse(graph: Graph, back: Layer, forth: Layer) -> bool:
    """Whether `forth` gives back the tensor `back` read: the same shape and every value in its place."""
    start = graph.tensors[back.inputs[0]].shape
    if graph.tensors[forth.outputs[0]].shape != start:
        return False
    composed = _order(back, start)[_order(forth, graph.tensors[back.outputs[0]].shape)]
    return bool((composed == np.arange(composed.size)).all())
