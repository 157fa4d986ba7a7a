"""Element-wise functions as logic or ROM tables that reproduce the C-simulation exactly.

ReLU and linear are logic (a comparison, then the write into the result type). Every other element-wise
function (the table activations, parametrized and hard activations, UnaryLUT) becomes a ROM whose
entries are the layer's own reference kernel (`hls4ml/model/reference`, bit-exact with the C++)
evaluated on every value the element's input can take: the RTL then indexes by the input's bits and
gives the firmware's output by construction. Where an input can take too many values for one ROM, a
table activation first writes the input into its table's index type (TRN, SAT: exactly what the C++
does before it reads the table), and the ROM covers the index values instead; functions whose output
above the table is the input itself (softplus, GELU, SiLU, ELU, SELU) need the direct ROM.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.kinds.activations import function_table
from hls4ml.model.types import FixedPrecisionType

MAX_ROM_ENTRIES = 1 << 12  # the widest direct ROM: 4096 entries (12 input bits)
INDEXED = ('sigmoid', 'tanh', 'softsign')  # output a function of the table slot alone


def _is_logic(layer: Layer) -> bool:
    return layer.kind == Kind.ACTIVATION and layer.attributes['activation'] in ('relu', 'linear')


def _indexed(layer: Layer) -> bool:
    return layer.kind == Kind.ACTIVATION and layer.attributes['activation'] in INDEXED


def check_element_wise(layer: Layer, graph: Graph) -> list[str]:
    """Refused: an input type too wide for a direct ROM when the function has no index narrowing."""
    if _is_logic(layer) or _indexed(layer):
        return []
    return rom_address_problems(layer, graph, 'input', 'the input')


def rom_address_problems(layer: Layer, graph: Graph, role: str, port: str) -> list[str]:
    """Refused: a layer input (its `role`, named `port` in the fix) with more values than one ROM holds."""
    source = graph.input_type(layer)
    if isinstance(source, FixedPrecisionType) and source.width <= MAX_ROM_ENTRIES.bit_length() - 1:
        return []
    return [
        f'{layer.describe()}: its {role} type {source} has more values than one ROM holds '
        f'({MAX_ROM_ENTRIES} entries); give {port} at most {MAX_ROM_ENTRIES.bit_length() - 1} bits'
    ]


def trace_element_wise(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    result = quantizer(layer.types['result'], f'{layer.describe()} result type')
    x = inputs[0]
    if _is_logic(layer):
        return result.apply(x.relu() if layer.attributes['activation'] == 'relu' else x)
    source = graph.input_type(layer)
    if not isinstance(source, FixedPrecisionType):
        raise ValueError(f'{layer.describe()}: the Verilog backend needs a fixed-point input type, got {source}')
    if _indexed(layer) and not _small(x):
        spec = function_table(layer, source)['']
        x = positive_factor(x)
        x = quantizer(spec.index_type, f'{layer.describe()} table index type').apply(x)
        source = spec.index_type
    cache: dict[tuple[float, float, float], np.ndarray] = {}  # one ROM per distinct input interval
    flat = [_rom(layer, graph, source, value, cache) for value in np.asarray(x._vars).ravel()]
    return type(x)(np.array(flat, dtype=object), x.solver_options, hwconf=x.hwconf)


def positive_factor(x: Any) -> Any:
    """`x` with every value held as itself (scale factor +1), not as a scaled or negated value."""
    flat = []
    for value in np.asarray(x._vars).ravel():
        signed, integer, fraction = value.kif
        flat.append(value.quantize(signed, integer, fraction, 'WRAP', 'TRN', _force_factor_clear=True))
    return type(x)(np.array(flat, dtype=object), x.solver_options, hwconf=x.hwconf)


def _small(x: Any) -> bool:
    return all(_count(value) <= MAX_ROM_ENTRIES for value in np.asarray(x._vars).ravel())


def _count(value: Any) -> int:
    return int(round((value.high - value.low) / value.step)) + 1


def _rom(layer: Layer, graph: Graph, source: FixedPrecisionType, value: Any, cache: dict) -> Any:
    """`value` looked up in the ROM of the reference outputs over its interval (a constant folds)."""
    key = (float(value.low), float(value.high), float(value.step) if value.high != value.low else 1.0)
    if key not in cache:
        cache[key] = _outputs(layer, graph, source, key)
    if value.low == value.high:
        return type(value).from_const(float(cache[key][0]), hwconf=value.hwconf)
    return value.lookup(cache[key])


def _outputs(layer: Layer, graph: Graph, source: FixedPrecisionType, key: tuple[float, float, float]) -> np.ndarray:
    """The reference outputs (exact floats) for every input value low, low + step, ..., high."""
    low, high, step = key
    count = int(round((high - low) / step)) + 1
    inputs = quantize((low + step * np.arange(count)).reshape(-1, 1), source, 'ap')
    reference = LAYER_KINDS[layer.kind].reference
    if reference is None:
        raise ValueError(f'{layer.describe()}: kind {layer.kind} has no reference kernel to fill a ROM from')
    output: FixedArray = reference(layer, [inputs], graph, 'ap')
    return output.to_double().reshape(-1)
