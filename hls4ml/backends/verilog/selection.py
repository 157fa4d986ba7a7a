"""Top-k and the token-choice router as comparator networks, with the reference's tie-breaking exactly.

The reference ranks each vector by a stable descending sort of the raw values (`reference/topk.py`,
`reference/router.py`): equal keys keep their index order. The RTL selects with k bubble passes of
compare-and-swap stages between neighbours: each pass carries the best of the remaining items to the
front, and a swap happens only when the later item is strictly better, so equal keys never pass each
other and the order is the stable sort's. Each item is (key, value, index, payloads); a swap is one
comparator (a subtraction's sign) and a multiplexer per field. The mask is decoded from the k selected
indices; the router's gates read the same exp and reciprocal tables as the C++ (`softmax.table_read`).
Softmax 'argmax' and the SOM's best-matching unit use `best_first`, a tree of the same comparators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.backends.verilog.products import accumulated
from hls4ml.backends.verilog.softmax import table_read
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.activations import softmax_row
from hls4ml.model.kinds.record import fixed_input_type

Item = tuple[Any, ...]  # (key, then the fields that travel with it)


def constant(like: Any, value: float) -> Any:
    """A constant FixedVariable in the hardware configuration of `like`."""
    return type(like).from_const(float(value), hwconf=like.hwconf)


def strictly_before(first: Any, second: Any, largest: bool) -> Any:
    """1 when key `first` must be ranked before key `second` (strictly larger, or smaller), else 0."""
    return (second - first).is_negative() if largest else (first - second).is_negative()


def compare_and_swap(earlier: Item, later: Item, largest: bool) -> tuple[Item, Item]:
    """The pair in rank order: `later` moves forward only when its key is strictly better (stable)."""
    swap = strictly_before(later[0], earlier[0], largest)
    front = tuple(swap.msb_mux(b, a) for a, b in zip(earlier, later, strict=True))
    back = tuple(swap.msb_mux(a, b) for a, b in zip(earlier, later, strict=True))
    return front, back


def select_first(items: list[Item], k: int, largest: bool = True) -> list[Item]:
    """The k best items in rank order (ties keep their input order): k bubble passes, back to front."""
    items = list(items)
    for position in range(k):
        for index in range(len(items) - 1, position, -1):
            items[index - 1], items[index] = compare_and_swap(items[index - 1], items[index], largest)
    return items[:k]


def best_first(items: list[Item], largest: bool) -> Item:
    """The first best item (ties to the lowest position): a tree of pairwise comparators in which the
    later item replaces the earlier one only when its key is strictly better."""
    while len(items) > 1:
        paired = []
        for earlier, later in zip(items[0::2], items[1::2], strict=False):
            take = strictly_before(later[0], earlier[0], largest)
            paired.append(tuple(take.msb_mux(b, a) for a, b in zip(earlier, later, strict=True)))
        if len(items) % 2:
            paired.append(items[-1])
        items = paired
    return items[0]


def chosen_mask(indices: list[Any], size: int) -> list[Any]:
    """Per position 0..size-1: 1 when one of the selected `indices` names it, else 0."""
    one, zero = constant(indices[0], 1), constant(indices[0], 0)
    mask = []
    for position in range(size):
        bit = zero
        for index in indices:
            bit = index._eq(position).msb_mux(one, bit)
        mask.append(bit)
    return mask


def scattered(indices: list[Any], values: list[Any], size: int) -> list[Any]:
    """Per position 0..size-1: the value whose index names it, 0 where none does (indices distinct)."""
    zero = constant(indices[0], 0)
    out = []
    for position in range(size):
        value = zero
        for index, candidate in zip(indices, values, strict=True):
            value = index._eq(position).msb_mux(candidate, value)
        out.append(value)
    return out


def _array(like: Any, flat: list[Any]) -> Any:
    return type(like)(np.array(flat, dtype=object), like.solver_options, hwconf=like.hwconf)


def magnitude_of(value: Any) -> Any:
    """|value| = relu(value) + relu(-value). da4ml's abs() reads the sign bit of the value's source when
    the value is a plain re-typing (a layer input read straight from the input port): logic behind the
    layer's input, which the per-layer cost trace (`project._layer_costs`) cannot follow."""
    return value.relu() + (-value).relu()


def detached(value: Any) -> Any:
    """`value` as an addition when it is a plain re-typing (da4ml 'wrap'), else itself: a comparison on a
    re-typed value makes da4ml read the sign of the value's source, behind the layer's input."""
    return value.relu() - (-value).relu() if value.opr == 'wrap' else value


def _items(row: np.ndarray, magnitude: bool = False) -> list[Item]:
    """(key, value, index) for each element of a row."""
    keys = [magnitude_of(value) if magnitude else value for value in row]
    return [(key, value, constant(value, index)) for index, (key, value) in enumerate(zip(keys, row, strict=True))]


# ---- TopK ------------------------------------------------------------------------------------------


def trace_topk(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    attributes = layer.attributes
    k, output = attributes['k'], attributes['output']
    row = np.asarray(inputs[0]._vars).ravel()
    best = select_first(_items(row, attributes['magnitude']), k, attributes.get('largest', True))
    indices = [item[2] for item in best]
    if output == 'values':
        flat = [item[1] for item in best]
    elif output == 'indices':
        flat = indices
    elif output == 'mask':
        flat = chosen_mask(indices, len(row))
    else:  # 'masked': x where selected, 0 elsewhere
        zero = constant(row[0], 0)
        flat = [bit.msb_mux(value, zero) for bit, value in zip(chosen_mask(indices, len(row)), row, strict=True)]
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(_array(inputs[0], flat))


# ---- Softmax 'argmax': the one-hot of the first maximum of each row ---------------------------------


def trace_softmax_argmax(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    """An argmax tree per row whose candidates carry their one-hot row (1 and 0 in the result type)."""
    rows = np.asarray(inputs[0]._vars).ravel().reshape(-1, softmax_row(layer))
    flat = []
    for row in rows:
        size = len(row)
        items = [(value, *(constant(value, float(i == j)) for j in range(size))) for i, value in enumerate(row)]
        flat += list(best_first(items, largest=True)[1:])
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(_array(inputs[0], flat))


# ---- Router (token choice): top-k of each row of logits, then the softmax gates of the chosen ------


def check_router(layer: Layer, graph: Graph) -> list[str]:
    attributes = layer.attributes
    problems = []
    if attributes.get('capacity', 0):
        problems.append(f'{layer.describe()}: router capacity (the group-wide expert load) has no Verilog logic yet')
    if attributes.get('sinkhorn_iterations', 0):
        problems.append(f'{layer.describe()}: Sinkhorn-balanced routing has no Verilog logic yet')
    return problems


def trace_router(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    attributes = layer.attributes
    rows = np.asarray(inputs[0]._vars).ravel().reshape(-1, attributes['n_in'])
    flat = []
    for row in rows:
        best = select_first(_items(row), attributes['k'])
        indices = [item[2] for item in best]
        if attributes['output'] == 'indices':
            flat += indices
            continue
        weights = _gate_weights(layer, graph, row, [item[1] for item in best], inputs[0])
        flat += weights if attributes['output'] == 'weights' else scattered(indices, weights, len(row))
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(_array(inputs[0], flat))


def _gate_weights(layer: Layer, graph: Graph, row: np.ndarray, chosen: list[Any], like: Any) -> list[Any]:
    """The k gates in rank order as `reference.router` computes them: e = exp_table(x - max), the sum
    of the chosen (renormalize) or of all e in accum_t, its reciprocal from inv_table, e * 1/sum."""
    rule = Kind.ROUTER.tables
    assert rule is not None
    tables = rule(layer, fixed_input_type(graph, layer))
    where = layer.describe()
    top = chosen[0]  # the largest logit: the first choice
    kept = [table_read(value - top, tables['exp_'], where) for value in chosen]
    summed = (
        kept if layer.attributes['renormalize'] else [table_read(value - top, tables['exp_'], where) for value in row]
    )
    accum = quantizer(layer.types['accum'], f'{where} accum type')
    total = accumulated(_array(like, [summed]), np.ones((len(summed), 1)), np.zeros(1), accum)
    inverse = table_read(np.asarray(total._vars).ravel()[0], tables['inv_'], where)
    result = quantizer(layer.types['result'], f'{where} result type')
    return list(np.asarray(result.apply(_array(like, [value * inverse for value in kept]))._vars).ravel())
