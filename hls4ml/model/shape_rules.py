"""Shape rules of the layer kinds: output shape from input shapes and attributes, and weight shapes.

Tensors are channels-last without the batch dimension: (width, channels) in 1-D, (height, width,
channels) in 2-D. Spatial attributes use hls4ml 1.x names (`in_height`, `filt_width`, `pad_top`, ...).
Every rule raises ValueError naming the layer when the inputs do not fit.
"""

from __future__ import annotations

import math

from hls4ml.model.ir import Layer
from hls4ml.model.reference.soft_topk import SOFT_TOPK_P_CHOICES, soft_topk_power

Shape = tuple[int, ...]
SOM_DENSE_DISTANCES = ('squared_euclidean', 'cosine')  # their BMU is the argmax of a Dense layer's outputs
SOM_DISTANCE_OUTPUTS = ('distances', 'activities')  # outputs that need the distances, not only the BMU


def _fail(layer: Layer, problem: str) -> ValueError:
    return ValueError(f'{layer.describe()}: {problem}')


def same_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    return inputs[0]


def input_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    return tuple(layer.attributes['shape'])


def dense_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    (shape,) = inputs
    if shape[-1] != layer.attributes['n_in']:
        raise _fail(layer, f'input has {shape[-1]} features, the weights expect {layer.attributes["n_in"]}')
    return (*shape[:-1], layer.attributes['n_out'])


def _spatial_input(layer: Layer, shape: Shape, rank: int) -> None:
    """Check the input against the layer's in_* / n_chan attributes."""
    attributes = layer.attributes
    expected: Shape = (attributes['in_width'], attributes['n_chan'])
    if rank == 2:
        expected = (attributes['in_height'], *expected)
    if tuple(shape) != expected:
        raise _fail(layer, f'input shape {tuple(shape)} does not match the layer, which expects {expected}')


def spatial_shape(channels_attribute: str, rank: int):
    """Output (out_height?, out_width, channels) of a windowed or resizing layer of `rank` 1 or 2."""

    def rule(layer: Layer, inputs: list[Shape]) -> Shape:
        _spatial_input(layer, inputs[0], rank)
        attributes = layer.attributes
        out: Shape = (attributes['out_width'], attributes[channels_attribute])
        if rank == 2:
            out = (attributes['out_height'], *out)
        if min(out) < 1:
            raise _fail(layer, f'the output shape {out} is empty')
        return out

    return rule


def window_output(size: int, window: int, stride: int, before: int, after: int) -> int:
    """Outputs of a sliding window over `size` inputs padded with `before` and `after` zeros."""
    return (size + before + after - window) // stride + 1


def same_padding(size: int, window: int, stride: int) -> tuple[int, int]:
    """Keras/TensorFlow 'same' padding: (before, after), the extra one after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return total // 2, total - total // 2


def global_pooling_shape(rank: int):
    def rule(layer: Layer, inputs: list[Shape]) -> Shape:
        _spatial_input(layer, inputs[0], rank)
        channels = layer.attributes['n_chan']
        return (1,) * rank + (channels,) if layer.attributes.get('keepdims') else (channels,)

    return rule


def reshape_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    target = tuple(layer.attributes['target_shape'])
    size = _size(inputs[0])
    if _size(target) != size:
        raise _fail(layer, f'cannot reshape {inputs[0]} ({size} values) into {target}')
    return target


def transpose_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    perm = tuple(layer.attributes['perm'])
    if sorted(perm) != list(range(len(inputs[0]))):
        raise _fail(layer, f'permutation {perm} does not fit an input of rank {len(inputs[0])}')
    return tuple(inputs[0][axis] for axis in perm)


def merge_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    if len(inputs) != 2 or inputs[0] != inputs[1]:
        raise _fail(layer, f'needs two inputs of the same shape, got {inputs}')
    return inputs[0]


def concatenate_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    axis = layer.attributes['axis']
    first, second = inputs
    if len(first) != len(second) or not 0 <= axis < len(first):
        raise _fail(layer, f'cannot concatenate {first} and {second} along axis {axis}')
    if any(a != b for index, (a, b) in enumerate(zip(first, second, strict=True)) if index != axis):
        raise _fail(layer, f'{first} and {second} differ outside the concatenation axis {axis}')
    return tuple(a + b if index == axis else a for index, (a, b) in enumerate(zip(first, second, strict=True)))


def dot_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    if len(inputs) != 2 or inputs[0] != inputs[1] or len(inputs[0]) != 1:
        raise _fail(layer, f'Dot is supported for two vectors of the same length, got {inputs}')
    return (1,)


def topk_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """(k,) values or indices, or (n_in,) mask / masked values, of a vector of n_in values."""
    n_in, k = layer.attributes['n_in'], layer.attributes['k']
    if len(inputs[0]) != 1 or inputs[0][0] != n_in:
        raise _fail(layer, f'top-k takes a vector of {n_in} values, got shape {inputs[0]}')
    if not 1 <= k <= n_in:
        raise _fail(layer, f'k={k} must be between 1 and n_in={n_in}')
    return (k,) if layer.attributes['output'] in ('values', 'indices') else (n_in,)


def soft_topk_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """(n_in,): the soft mask or the scaled values; l positive, p 2 or 4/3 (4/3: the mask only), the search
    1..64 steps."""
    attributes = layer.attributes
    n_in, k, strength = attributes['n_in'], attributes['k'], attributes['l']
    if len(inputs[0]) != 1 or inputs[0][0] != n_in:
        raise _fail(layer, f'soft top-k takes a vector of {n_in} values, got shape {inputs[0]}')
    if not 1 <= k <= n_in:
        raise _fail(layer, f'k={k} must be between 1 and n_in={n_in}')
    if not (strength > 0 and math.isfinite(strength)):
        raise _fail(layer, f'l={strength} must be a positive number')
    if attributes['mode'] not in ('mask', 'magnitude') or not 1 <= attributes['iterations'] <= 64:
        raise _fail(
            layer,
            f'mode {attributes["mode"]!r} / iterations {attributes["iterations"]}: '
            "expected 'mask' or 'magnitude' and 1..64 iterations",
        )
    if soft_topk_power(attributes.get('p', 2.0), attributes['mode']) is None:
        raise _fail(layer, f'p={attributes.get("p")} with mode {attributes["mode"]!r}: {SOFT_TOPK_P_CHOICES}')
    return (n_in,)


def router_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """(..., n_in) dense gates, or (..., k) gates / expert indices, of rows of n_in expert logits
    along the last axis (one row per token: a vector, or (tokens, n_in))."""
    n_in, k, output = layer.attributes['n_in'], layer.attributes['k'], layer.attributes['output']
    if len(inputs[0]) < 1 or inputs[0][-1] != n_in:
        raise _fail(layer, f'the router takes rows of {n_in} expert logits (the last axis), got shape {inputs[0]}')
    if not 1 <= k <= n_in:
        raise _fail(layer, f'k={k} must be between 1 and the {n_in} experts')
    if output not in ('gates', 'weights', 'indices'):
        raise _fail(layer, f"unknown router output {output!r}; expected 'gates', 'weights' or 'indices'")
    capacity = layer.attributes.get('capacity', 0)
    if capacity and (output == 'indices' or not 1 <= capacity):
        raise _fail(
            layer,
            f'capacity={capacity} with output {output!r}: a capacity (a positive number of tokens per expert) '
            "needs output 'gates' or 'weights' (a dropped choice is a gate of 0; indices cannot show it)",
        )
    iterations, bits = layer.attributes.get('sinkhorn_iterations', 0), layer.attributes.get('sinkhorn_bits', 16)
    if not (0 <= iterations <= 64 and 4 <= bits <= 30):
        raise _fail(layer, f'sinkhorn_iterations={iterations} must be 0..64 and sinkhorn_bits={bits} 4..30')
    return (*inputs[0][:-1], n_in if output == 'gates' else k)


def soft_router_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """(..., n_in) gates or (..., 1) overflow counts of rows of n_in expert logits (the last axis)."""
    from hls4ml.model.reference.soft_router import check_soft_router  # the reference imports this module

    attributes = layer.attributes
    n_in = attributes['n_in']
    if len(inputs[0]) < 1 or inputs[0][-1] != n_in:
        raise _fail(layer, f'the router takes rows of {n_in} expert logits (the last axis), got shape {inputs[0]}')
    try:
        check_soft_router(attributes)
    except ValueError as error:
        raise _fail(layer, str(error)) from error
    return (*inputs[0][:-1], n_in if attributes['output'] == 'gates' else 1)


def expert_choice_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """(n_tokens, n_in): the gates of a group of n_tokens tokens over n_in experts."""
    n_tokens, n_in, capacity = layer.attributes['n_tokens'], layer.attributes['n_in'], layer.attributes['capacity']
    if tuple(inputs[0]) != (n_tokens, n_in):
        raise _fail(layer, f'expert choice takes ({n_tokens} tokens, {n_in} experts) logits, got shape {inputs[0]}')
    if not 1 <= capacity <= n_tokens:
        raise _fail(layer, f'capacity={capacity} must be between 1 and the {n_tokens} tokens of a group')
    if layer.attributes.get('l', 0):
        if not 1 <= layer.attributes['iterations'] <= 64:
            raise _fail(layer, f'soft expert choice: iterations={layer.attributes["iterations"]} must be 1..64')
        from hls4ml.model.reference.soft_router import soft_expert_choice_types  # imports this module

        try:  # the soft top-k decides which l and iterations its kernel computes
            from hls4ml.model.types import FixedPrecisionType

            probe = FixedPrecisionType(16, 6)
            attributes = layer.attributes
            p = attributes.get('p', 2.0)
            soft_expert_choice_types(probe, n_tokens, capacity, attributes['l'], attributes['iterations'], p)
        except ValueError as error:
            raise _fail(layer, f'soft expert choice: {error}') from error
    return (n_tokens, n_in)


def _size(shape: Shape) -> int:
    size = 1
    for dim in shape:
        size *= dim
    return size


# ---- weights ------------------------------------------------------------------------------------------


def no_weights(layer: Layer) -> dict[str, Shape]:
    return {}


def dense_weights(layer: Layer) -> dict[str, Shape]:
    return {'weight': (layer.attributes['n_in'], layer.attributes['n_out']), 'bias': (layer.attributes['n_out'],)}


def per_element_weights(*names: str):
    def rule(layer: Layer) -> dict[str, Shape]:
        return {name: (layer.attributes['n_in'],) for name in names}

    return rule


def quantizer_weights(layer: Layer) -> dict[str, Shape]:
    """FixedPointQuantizer: n_params triples, n_params dividing n_in (value j uses triple j % n_params)."""
    n_params, n_in = layer.attributes['n_params'], layer.attributes['n_in']
    if n_params < 1 or n_in % n_params:
        raise ValueError(f'{layer.describe()}: n_params {n_params} does not divide n_in {n_in}')
    return dict.fromkeys(('keep_negative', 'integer_bits', 'fraction_bits'), (n_params,))


def lut_weights(layer: Layer) -> dict[str, Shape]:
    """UnaryLUT: one entry per point of its grid (`table_size` of them)."""
    return {'table': (layer.attributes['table_size'],)}


def conv_weights(rank: int, depthwise: bool = False):
    """Keras kernel layout: (filt_height?, filt_width, n_chan, n_filt), depthwise (…, n_chan)."""

    def rule(layer: Layer) -> dict[str, Shape]:
        attributes = layer.attributes
        window = (attributes['filt_width'],) if rank == 1 else (attributes['filt_height'], attributes['filt_width'])
        last = (attributes['n_chan'],) if depthwise else (attributes['n_chan'], attributes['n_filt'])
        return {'weight': (*window, *last), 'bias': (attributes['n_filt'],)}

    return rule


def som_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """(1,) for a BMU index or label, (2,) for its grid coordinates, (n_in,) for its codebook vector,
    (n_units,) for one-hot, distances or activities."""
    attributes = layer.attributes
    rows, cols = attributes['grid']
    if inputs[0] != (attributes['n_in'],):
        raise _fail(
            layer, f'input shape {inputs[0]} does not match the codebook, which expects ({attributes["n_in"]},)'
        )
    if rows * cols != attributes['n_units']:
        raise _fail(layer, f'grid {rows}x{cols} does not hold {attributes["n_units"]} units')
    if attributes.get('topology', 'rectangular') not in ('rectangular', 'hexagonal'):
        raise _fail(layer, f"topology {attributes['topology']!r} is neither 'rectangular' nor 'hexagonal'")
    beta = attributes.get('beta', 1.0)
    if not (isinstance(beta, (int, float)) and 0 < beta < float('inf')):
        raise _fail(layer, f'beta {beta!r} of the activities must be a finite positive number')
    problem = som_dense_problem(attributes)
    if problem:
        raise _fail(layer, problem)
    sizes = {'index': 1, 'label': 1, 'coordinates': 2, 'quantized': attributes['n_in']}
    return (sizes.get(attributes['output'], attributes['n_units']),)  # one_hot, distances, activities


def som_dense_problem(attributes: dict) -> str | None:
    """Why the SOM's Implementation 'dense' cannot compute its output; None when it can (or is not chosen)."""
    if attributes.get('implementation', 'distance') != 'dense':
        return None
    distance, output = attributes['distance'], attributes['output']
    if distance not in SOM_DENSE_DISTANCES:
        return (
            f"Implementation 'dense' needs distance 'squared_euclidean' or 'cosine', not {distance!r}; "
            "use Implementation 'distance'"
        )
    if output in SOM_DISTANCE_OUTPUTS:
        return (
            f"Implementation 'dense' computes scores w_n.x - |w_n|^2/2, not distances, so output {output!r} "
            "needs Implementation 'distance'"
        )
    return None


def som_weights(layer: Layer) -> dict[str, Shape]:
    """The codebook (n_units, n_in), row-major over the grid, and with output 'label' one label per unit."""
    attributes = layer.attributes
    shapes: dict[str, Shape] = {'codebook': (attributes['n_units'], attributes['n_in'])}
    if attributes['output'] == 'label':
        shapes['labels'] = (attributes['n_units'],)
    return shapes


def resom_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """ReSOM of inputs x (n_in,) and y (n_in_y,): (1,) label or global index, (2,) the per-map winners,
    (n_units_x + n_units_y,) the activities."""
    attributes = layer.attributes
    expected = [(attributes['n_in'],), (attributes['n_in_y'],)]
    if list(inputs) != expected:
        raise _fail(layer, f'inputs {list(inputs)} do not match the codebooks, which expect {expected}')
    for side in ('x', 'y'):
        rows, cols = attributes[f'grid_{side}']
        if rows * cols != attributes[f'n_units_{side}']:
            raise _fail(layer, f'grid_{side} {rows}x{cols} does not hold {attributes[f"n_units_{side}"]} units')
    if attributes['iterations'] < 1:
        raise _fail(layer, f'iterations must be at least 1, got {attributes["iterations"]}')
    sizes = {'label': 1, 'index': 1, 'winners': 2}
    return (sizes.get(attributes['output'], attributes['n_units_x'] + attributes['n_units_y']),)


def resom_weights(layer: Layer) -> dict[str, Shape]:
    """Both codebooks (n_units, n_in) row-major over their grids, the lateral matrix (n_units_x,
    n_units_y), and with output 'label' the labels of the x units then the y units."""
    attributes = layer.attributes
    n_x, n_y = attributes['n_units_x'], attributes['n_units_y']
    shapes: dict[str, Shape] = {
        'codebook_x': (n_x, attributes['n_in']),
        'codebook_y': (n_y, attributes['n_in_y']),
        'lateral': (n_x, n_y),
    }
    if attributes['output'] == 'label':
        shapes['labels'] = (n_x + n_y,)
    return shapes


def resom_maps_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    """ReSOM of M maps, input m (map_inputs[m],): (1,) label or global index, (M,) the per-map winners,
    (sum of map_units,) the activities."""
    attributes = layer.attributes
    expected = [(width,) for width in attributes['map_inputs']]
    if list(inputs) != expected:
        raise _fail(layer, f'inputs {list(inputs)} do not match the codebooks, which expect {expected}')
    for index, ((rows, cols), units) in enumerate(zip(attributes['grids'], attributes['map_units'], strict=True)):
        if rows * cols != units:
            raise _fail(layer, f'grid of map {index} {rows}x{cols} does not hold {units} units')
    if attributes['iterations'] < 1:
        raise _fail(layer, f'iterations must be at least 1, got {attributes["iterations"]}')
    sizes = {'label': 1, 'index': 1, 'winners': len(expected)}
    return (sizes.get(attributes['output'], sum(attributes['map_units'])),)


def resom_maps_weights(layer: Layer) -> dict[str, Shape]:
    """One codebook (map_units[m], map_inputs[m]) per map, one matrix lateral_i_j (map_units[i],
    map_units[j]) per pair i < j, and with output 'label' the labels of every unit, map 0 first."""
    units, widths = layer.attributes['map_units'], layer.attributes['map_inputs']
    shapes: dict[str, Shape] = {f'codebook_{m}': (units[m], widths[m]) for m in range(len(units))}
    for i in range(len(units)):
        for j in range(i + 1, len(units)):
            shapes[f'lateral_{i}_{j}'] = (units[i], units[j])
    if layer.attributes['output'] == 'label':
        shapes['labels'] = (sum(units),)
    return shapes
