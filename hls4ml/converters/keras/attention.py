"""Handler of Keras 3 `MultiHeadAttention`: a composition of existing IR kinds (docs/attention.md).

    query, key, value projections   EinsumDense 'abc,cde->abde' each (the query's kernel and bias
                                    scaled by 1/sqrt(key_dim), as Keras scales the projected query)
    scores = K . Q                  Einsum 'aecd,abcd->acbe' -> (heads, Tq, Tk)
    masked scores                   with attention_mask / use_causal_mask: scores * keep + offset
                                    (`_masked`), -MASKED where a key is masked
    weights = softmax(scores)       Softmax along the last axis (rows of Tk keys)
    mixed = weights . V             Einsum 'acbe,aecd->abcd' -> (Tq, heads, value_dim)
    output                          EinsumDense 'abcd,cde->abe', named after the Keras layer

With return_attention_scores=True the second output is the softmax (heads, Tq, Tk), through a
Reshape of the same shape (the walker maps the last layers to the outputs). Query/value masks, gated
attention, sliding windows and attention over several axes are refused by name."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.converters.attention import KEEP_TYPE, MASKED, OFFSET_TYPE
from hls4ml.converters.keras.einsum import einsum_dense
from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, _own_layer, handles
from hls4ml.model import einsum as equations
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.types import FixedPrecisionType

Shapes = dict[str, tuple[int, ...]]  # IR tensor -> shape, for the layers made here


@handles(
    'MultiHeadAttention',
    produces=(Kind.EINSUM_DENSE, Kind.EINSUM, Kind.SOFTMAX, Kind.MERGE, Kind.BATCH_NORMALIZATION, Kind.RESHAPE),
)
def multi_head_attention(source: Source) -> list[Layer]:
    layer = source.layer
    _refuse_unsupported(source)
    shapes = dict(zip(source.inputs, source.input_shapes, strict=True))  # IR tensor -> shape, as layers are made
    query, value, key = _operands(source)
    made = [
        _projection(source, layer._query_dense, 'query', query, float(layer._inverse_sqrt_key_dim), shapes),
        _projection(source, layer._key_dense, 'key', key, 1.0, shapes),
        _projection(source, layer._value_dense, 'value', value, 1.0, shapes),
    ]
    made.append(_product(source, 'scores', layer._dot_product_equation, made[1], made[0], shapes))
    made += _masked(source, made[-1], shapes)
    made.append(_softmax(source, made[-1], shapes))
    made.append(_product(source, 'mixed', layer._combine_equation, made[-1], made[2], shapes))
    output = Source(layer._output_dense, source.name, [made[-1].name], [shapes[made[-1].name]])
    if not _call_arguments(layer).get('return_attention_scores'):
        return [*made, *einsum_dense(output)]
    weights = next(made_layer for made_layer in made if made_layer.kind == Kind.SOFTMAX)
    scores = Source(layer, f'{source.name}_attention_scores', [weights.name], [shapes[weights.name]])
    return [*made, *einsum_dense(output), _own_layer(scores.make(Kind.RESHAPE, target_shape=shapes[weights.name]))]


def _refuse_unsupported(source: Source) -> None:
    """Settings the composition does not compute: refused with the setting's name."""
    layer, config = source.layer, source.config
    arguments = _call_arguments(layer)
    if arguments.get('query_mask') is not None or arguments.get('value_mask') is not None:
        raise UnsupportedLayer(f'{source.origin}: query_mask / value_mask are not supported')
    if config.get('use_gate'):
        raise UnsupportedLayer(f'{source.origin}: use_gate=True (gated attention) is not supported')
    if config.get('sliding_window') is not None:
        raise UnsupportedLayer(f'{source.origin}: sliding_window={config["sliding_window"]} is not supported')
    if len(source.input_shapes[0]) != 2 or tuple(layer._attention_axes) != (1,):
        raise UnsupportedLayer(
            f'{source.origin}: attention over inputs of shape {source.input_shapes[0]} with attention_axes '
            f'{config.get("attention_axes")} is not supported (inputs (tokens, features), attention over the tokens)'
        )


def _call_arguments(layer: Any) -> dict[str, Any]:
    """The keyword arguments of the layer's one call in the model (the walker refuses shared layers)."""
    arguments = layer._inbound_nodes[0].arguments
    return dict(arguments.kwargs)


def _operands(source: Source) -> tuple[str, str, str]:
    """The IR tensors of the query, the value and the key (the value when no key is given)."""
    node = source.layer._inbound_nodes[0]
    by_id = _tensor_names(source)
    named = node.arguments.kwargs
    positional = [id(tensor) for tensor in node.arguments.args]
    order = positional + [id(named[key]) for key in ('query', 'value', 'key') if named.get(key) is not None]
    operands = [by_id[identity] for identity in order if identity in by_id]
    if len(operands) == 2:
        operands.append(operands[1])
    return operands[0], operands[1], operands[2]


def _tensor_names(source: Source) -> dict[int, str]:
    """id of each Keras input tensor of the call -> its IR tensor."""
    node = source.layer._inbound_nodes[0]
    return {id(tensor): name for tensor, name in zip(node.input_tensors, source.inputs, strict=True)}


def _masked(source: Source, scores: Layer, shapes: Shapes) -> list[Layer]:
    """The scores where a key may be attended, -MASKED where it is masked (attention_mask False, or
    after the query with use_causal_mask), as Keras' `where(mask, scores, -1e9)`: scores * keep +
    offset, keep 1 or 0 and offset 0 or -MASKED per position. A causal mask alone is a constant: one
    BatchNormalization (scale keep, bias offset); with a mask input, two EinsumDense layers of the
    mask ('bc,dbc->dbc': keep = mask * allowed, offset = MASKED * keep - MASKED), a multiply and an
    add. Masked keys fall below the softmax's exp table: weight exactly 0 (docs/attention.md)."""
    arguments = _call_arguments(source.layer)
    mask, causal = arguments.get('attention_mask'), bool(arguments.get('use_causal_mask'))
    if mask is None and not causal:
        return []
    heads, queries, keys = shapes[scores.name]
    allowed = np.tril(np.ones((queries, keys))) if causal else np.ones((queries, keys))
    allowed = np.broadcast_to(allowed, (heads, queries, keys))
    if mask is None:
        added = Source(source.layer, f'{source.name}_causal', [scores.name], [shapes[scores.name]])
        weights = {'scale': allowed.reshape(-1), 'bias': MASKED * (allowed.reshape(-1) - 1)}
        constant = _own_layer(added.make(Kind.BATCH_NORMALIZATION, n_in=allowed.size, weights=weights))
        constant.types.update(scale=KEEP_TYPE, bias=OFFSET_TYPE)
        return [_add(constant, shapes)]
    mask_tensor = _tensor_names(source)[id(mask)]
    if shapes[mask_tensor] != (queries, keys):
        raise UnsupportedLayer(
            f'{source.origin}: attention_mask of shape {shapes[mask_tensor]} per sample is not supported '
            f'((queries, keys) = {(queries, keys)})'
        )
    keep = _mask_spread(source, 'keep', mask_tensor, allowed, np.zeros(allowed.size), shapes)
    offset = _mask_spread(source, 'offset', mask_tensor, MASKED * allowed, np.full(allowed.size, -MASKED), shapes)
    kept = Source(source.layer, f'{source.name}_kept', [scores.name, keep.name], [shapes[scores.name]] * 2)
    multiply = _add(_own_layer(kept.make(Kind.MERGE, op='multiply')), shapes)
    total = Source(source.layer, f'{source.name}_masked', [multiply.name, offset.name], [shapes[scores.name]] * 2)
    return [keep, offset, multiply, _add(_own_layer(total.make(Kind.MERGE, op='add')), shapes)]


def _mask_spread(source: Source, role: str, mask: str, weight: np.ndarray, bias: np.ndarray, shapes: Shapes) -> Layer:
    """mask (queries, keys) -> weight * mask + bias per (head, query, key), in exact types."""
    spread = Source(source.layer, f'{source.name}_mask_{role}', [mask], [shapes[mask]])
    attributes = {'equation': 'bc,dbc->dbc', 'kernel_shape': weight.shape, 'n_out': weight.size}
    layer = _own_layer(spread.make(Kind.EINSUM_DENSE, weights={'weight': weight, 'bias': bias}, **attributes))
    layer.types.update(weight=FixedPrecisionType(11, 11, False), bias=OFFSET_TYPE)
    return _add(layer, shapes)


def _projection(source: Source, dense: Any, role: str, operand: str, scale: float, shapes: Shapes) -> Layer:
    """A per-head projection; the query's kernel and bias times `scale` (exact when it is a power of two)."""
    inner = Source(dense, f'{source.name}_{role}', [operand], [shapes[operand]])
    (layer,) = einsum_dense(inner)
    if scale != 1.0:
        layer.weights = {name: values * scale for name, values in layer.weights.items()}
    return _add(_own_layer(layer), shapes)


def _product(source: Source, role: str, equation: str, first: Layer, second: Layer, shapes: Shapes) -> Layer:
    """The Einsum of two computed tensors, Keras' equation without the batch axis."""
    operand_shapes = (shapes[first.name], shapes[second.name])
    try:
        explicit = equations.drop_batch(
            equations.explicit(equation, (len(operand_shapes[0]) + 1, len(operand_shapes[1]) + 1))
        )
        equations.plan(explicit, *operand_shapes)
    except equations.EinsumError as error:
        raise UnsupportedLayer(f'{source.origin}: {error}') from None
    product = Source(source.layer, f'{source.name}_{role}', [first.name, second.name], list(operand_shapes))
    return _add(_own_layer(product.make(Kind.EINSUM, equation=explicit)), shapes)


def _softmax(source: Source, scores: Layer, shapes: Shapes) -> Layer:
    """Softmax of the scores along the keys (the last axis); LayerType 'Softmax' entries reach it."""
    shape = shapes[scores.name]
    inner = Source(source.layer._softmax, f'{source.name}_softmax', [scores.name], [shape])
    return _add(inner.make(Kind.SOFTMAX, n_in=math.prod(shape), n_slice=shape[-1], axis=-1), shapes)


def _add(layer: Layer, shapes: dict[str, tuple[int, ...]]) -> Layer:
    """Record the output shape of a layer made here (its kind's shape rule) and return the layer."""
    input_shapes = [shapes[tensor] for tensor in layer.inputs]
    shapes[layer.name] = tuple(LAYER_KINDS[layer.kind].output_shape(layer, input_shapes))
    return layer
