"""Handler of Keras 3 `MultiHeadAttention`: a composition of existing IR kinds (docs/attention.md).

    query, key, value projections   EinsumDense 'abc,cde->abde' each (the query's kernel and bias
                                    scaled by 1/sqrt(key_dim), as Keras scales the projected query)
    scores = K . Q                  Einsum 'aecd,abcd->acbe' -> (heads, Tq, Tk)
    weights = softmax(scores)       Softmax along the last axis (rows of Tk keys)
    mixed = weights . V             Einsum 'acbe,aecd->abcd' -> (Tq, heads, value_dim)
    output                          EinsumDense 'abcd,cde->abe', named after the Keras layer

Masks (`attention_mask`, `use_causal_mask`), `return_attention_scores`, gated attention, sliding
windows and attention over several axes are refused by name."""

from __future__ import annotations

import math
from typing import Any

from hls4ml.converters.keras.einsum import einsum_dense
from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, _own_layer, handles
from hls4ml.model import einsum as equations
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind

Shapes = dict[str, tuple[int, ...]]  # IR tensor -> shape, for the layers made here


@handles('MultiHeadAttention', produces=(Kind.EINSUM_DENSE, Kind.EINSUM, Kind.SOFTMAX))
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
    made.append(_softmax(source, made[-1], shapes))
    made.append(_product(source, 'mixed', layer._combine_equation, made[-1], made[2], shapes))
    output = Source(layer._output_dense, source.name, [made[-1].name], [shapes[made[-1].name]])
    return [*made, *einsum_dense(output)]


def _refuse_unsupported(source: Source) -> None:
    """Settings the composition does not compute: refused with the setting's name."""
    layer, config = source.layer, source.config
    arguments = _call_arguments(layer)
    if arguments.get('attention_mask') is not None or arguments.get('use_causal_mask'):
        raise UnsupportedLayer(
            f'{source.origin}: attention masks (attention_mask, use_causal_mask=True) are not supported yet; '
            'call the layer without a mask'
        )
    if arguments.get('return_attention_scores'):
        raise UnsupportedLayer(f'{source.origin}: return_attention_scores=True is not supported (the output only)')
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
    positional = [id(tensor) for tensor in node.arguments.args]
    named = node.arguments.kwargs
    by_id = {id(tensor): name for tensor, name in zip(node.input_tensors, source.inputs, strict=True)}
    order = positional + [id(named[key]) for key in ('query', 'value', 'key') if named.get(key) is not None]
    operands = [by_id[identity] for identity in order if identity in by_id]
    if len(operands) == 2:
        operands.append(operands[1])
    return operands[0], operands[1], operands[2]


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
