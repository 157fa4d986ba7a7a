"""The self-organizing map (Kind.SOM) as logic: distances to the constant codebook, then an argmin tree.

Distances follow `nnet::som` step by step (`reference/som.py`): diff_j = x_j - w_nj exact, and every
`acc = ...` a write into accum_t (squared Euclidean: acc + diff^2, computed exactly as x_j^2 - 2 w_nj x_j
+ w_nj^2 with one ROM of squares per input shared by every unit, so no multiplier; Manhattan: acc + |diff|; Chebyshev:
the larger of acc and diff, then of acc and -diff; cosine: acc + x_j w_nj). Implementation 'dense'
scores w_n . x - |w_n|^2 / 2 with the Dense accumulator (`products.accumulated`). The best-matching
unit is a comparator tree whose right branch (the higher indices) wins only when strictly better, so
ties go to the lowest index as the reference's scan does; each candidate carries the layer's output
for that unit (the reference's own `bmu_output` of every unit, as constants), so the multiplexers of
the tree deliver the output. Output 'activities' reads the exp table at the gap to the best unit's
distance (Manhattan, Chebyshev, cosine); of squared Euclidean distances (square roots) it is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import Quantizer, quantizer
from hls4ml.backends.verilog.products import accumulated
from hls4ml.backends.verilog.selection import best_first, constant, detached
from hls4ml.backends.verilog.tables import MAX_ROM_ENTRIES
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import weights_of
from hls4ml.model.reference.som import SIMILARITIES, activity_table, bmu_output, score_biases, score_weights


def check_som(layer: Layer, graph: Graph) -> list[str]:
    attributes = layer.attributes
    if attributes['output'] == 'activities' and attributes['distance'] == 'squared_euclidean':
        return [
            f"{layer.describe()}: SOM output 'activities' of squared Euclidean distances takes square roots, "
            "which have no Verilog logic yet (use distance 'manhattan', 'chebyshev' or 'cosine')"
        ]
    return []


def _codebook(layer: Layer) -> FixedArray:
    return quantize(layer.weights['codebook'], layer.types['codebook'], 'ap')


def square(value: Any) -> Any:
    """value * value: a ROM of the squares when the value takes at most MAX_ROM_ENTRIES values, else a
    multiplier."""
    count = int(round((value.high - value.low) / value.step)) + 1 if value.high != value.low else 1
    if count == 1 or count > MAX_ROM_ENTRIES:
        return value * value
    grid = float(value.low) + float(value.step) * np.arange(count)
    return value.lookup(grid * grid)


def _step(acc: Any, value: Any, weight: float, distance: str, accum: Quantizer, squared: Any) -> Any:
    """One `acc = ...` of the reference's distance loop; `squared`: value * value, shared by the units."""
    if distance == 'cosine':
        return accum.apply(acc + value * weight)
    if distance == 'squared_euclidean':  # (x - w)^2 = x^2 - 2 w x + w^2 exactly: one square per input
        return accum.apply(acc + (squared - value * (2 * weight) + weight * weight))
    diff = detached(value - weight)  # a zero weight leaves the input itself
    if distance == 'manhattan':
        return accum.apply(acc + abs(diff))
    acc = (acc - diff).is_negative().msb_mux(accum.apply(diff), acc)  # chebyshev: diff > acc
    return (acc + diff).is_negative().msb_mux(accum.apply(-diff), acc)  # -diff > acc


def _distances(layer: Layer, row: np.ndarray, accum: Quantizer) -> list[Any]:
    codebook = _codebook(layer).to_double()
    distance = layer.attributes['distance']
    squares = [square(value) if distance == 'squared_euclidean' else None for value in row]
    sums = []
    for unit in codebook:
        acc = accum.apply(constant(row[0], 0))
        for value, weight, squared in zip(row, unit, squares, strict=True):
            acc = _step(acc, value, float(weight), distance, accum, squared)
        sums.append(acc)
    return sums


def _scores(layer: Layer, x: Any, accum: Quantizer) -> list[Any]:
    """The dense form's scores w_n . x - |w_n|^2 / 2 (cosine: w_n . x), accumulated as nnet::dense."""
    codebook = _codebook(layer)
    weights = score_weights(codebook).to_double()
    biases = score_biases(codebook, layer.attributes['distance']).to_double()
    return list(np.asarray(accum.apply(accumulated(x.reshape(1, -1), weights, biases, accum))._vars).ravel())


def trace_som(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    attributes = layer.attributes
    where = layer.describe()
    accum = quantizer(layer.types['accum'], f'{where} accum type')
    result = quantizer(layer.types['result'], f'{where} result type')
    x = inputs[0]
    dense = attributes.get('implementation', 'distance') == 'dense'
    keys = _scores(layer, x, accum) if dense else _distances(layer, np.asarray(x._vars).ravel(), accum)
    if attributes['output'] == 'distances':
        flat = keys
    elif attributes['output'] == 'activities':
        flat = _activities(layer, keys, accum)
    else:
        largest = dense or attributes['distance'] in SIMILARITIES
        payloads = _unit_outputs(layer)
        items = [
            (key, *(constant(key, value) for value in payload)) for key, payload in zip(keys, payloads, strict=True)
        ]
        flat = list(best_first(items, largest)[1:])
    return result.apply(type(x)(np.array(flat, dtype=object), x.solver_options, hwconf=x.hwconf))


def _activities(layer: Layer, keys: list[Any], accum: Quantizer) -> list[Any]:
    """exp(-gap / beta) per unit from the activity table: gap = d_n - d_bmu (similarities: the other way),
    written into the table's index type, then a ROM over those values holding the entry of slot
    (raw + 1) >> 1, or 0 past the table, as `reference.som_activities` reads it."""
    attributes = layer.attributes
    table = activity_table(attributes, layer.types['accum'], layer.types.get('table'), 'ap')
    similarity = attributes['distance'] in SIMILARITIES
    best = best_first([(key,) for key in keys], similarity)[0]
    index = quantizer(table.index_type, f'{layer.describe()} activity index type')
    entries = table.values.to_double()
    outputs = []
    for key in keys:
        slot_value = index.apply(best - key if similarity else key - best)
        outputs.append(_table_read(slot_value, entries, table.index_type.fractional))
    return outputs


def _table_read(value: Any, entries: np.ndarray, fraction: int) -> Any:
    count = int(round((value.high - value.low) / value.step)) + 1 if value.high != value.low else 1
    raw = np.round((float(value.low) + float(value.step) * np.arange(count)) * 2.0**fraction).astype(np.int64)
    slots = (raw + 1) >> 1  # negative slots (a gap below 0) cannot occur: their entries are never read
    inside = (slots >= 0) & (slots < entries.size)
    read = np.where(inside, entries[np.clip(slots, 0, entries.size - 1)], 0.0)
    return constant(value, read[0]) if count == 1 else value.lookup(read)


def _unit_outputs(layer: Layer) -> np.ndarray:
    """(n_units, output size): the layer's output when each unit is the BMU, from the reference."""
    codebook = _codebook(layer)
    labels = weights_of(layer, 'labels', 'label', 'ap') if 'labels' in layer.weights else None
    units = np.arange(codebook.shape[0])
    output = bmu_output(units, codebook, labels, layer.attributes, layer.types['result'])
    return output.to_double().reshape(len(units), -1)
