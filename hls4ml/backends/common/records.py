"""What the lowering hands to the templates: plain records, no logic left for Jinja but loops.

A `LayerImpl` is one layer's implementation: the config struct (static members and typedefs the
kernel reads), the kernel call, and the constant arrays (weights, tables) it needs.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from hls4ml.model.fixed import quantize
from hls4ml.model.types import FixedPrecisionType

EXACT_DOUBLE_BITS = 53


VALUES_PER_ROW = 16
PRINTED_MEMO_CHARACTERS = 64 << 20  # the printed arrays kept per process (about 64 MB of text)


@dataclass
class ConstArray:
    """A constant C array: `static const <type_name> <name>[<size>] = {<values>};` in weights/<name>.h.

    `doubles` are the quantized values, each an exact double of the type; their decimal text is printed
    only when a header is rendered (`value_lines`), so a lowering that renders nothing (estimate())
    prints nothing."""

    name: str
    type_name: str
    shape: tuple[int, ...]
    minimum: float
    maximum: float
    zeros: int
    doubles: np.ndarray = field(repr=False)  # also the C-simulation's binary copy

    @property
    def size(self) -> int:
        return int(self.doubles.size)

    @property
    def value_lines(self) -> str:
        """The values as the weights header's `#define` continues them: VALUES_PER_ROW to a line, each line
        opened by a newline and four spaces, all but the last closed by `, \\`. Printed here, not with
        Jinja's batch and join filters, which took most of the write time of large models."""
        return printed_values(self.doubles)


class _PrintedMemo:
    """The printed text of arrays by the SHA-256 of their doubles, least recently used first out: a
    compile() after write(), or of an unchanged model, prints its 300,000 weights again otherwise
    (0.2-0.4 s). The text is a function of the doubles' bytes alone, so the key cannot serve a stale one."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.entries: OrderedDict[bytes, str] = OrderedDict()
        self.characters = 0
        self.lock = threading.Lock()

    def get(self, key: bytes) -> str | None:
        with self.lock:
            text = self.entries.get(key)
            if text is not None:
                self.entries.move_to_end(key)
            return text

    def put(self, key: bytes, text: str) -> None:
        with self.lock:
            if key in self.entries or len(text) > self.limit:
                return
            self.entries[key] = text
            self.characters += len(text)
            while self.characters > self.limit:
                self.characters -= len(self.entries.popitem(last=False)[1])


_PRINTED = _PrintedMemo(PRINTED_MEMO_CHARACTERS)


def printed_values(doubles: np.ndarray) -> str:
    """`value_lines` of these doubles (see ConstArray), from the process memo when printed before."""
    raw = np.ascontiguousarray(doubles, dtype=np.float64)
    key = hashlib.sha256(raw.data).digest()
    text = _PRINTED.get(key)
    if text is None:
        text = _print_rows(raw.ravel())
        _PRINTED.put(key, text)
    return text


def _print_rows(doubles: np.ndarray) -> str:
    """Each distinct value printed once (a 16-bit type has at most 65,536), then laid out in rows."""
    distinct, positions = np.unique(doubles, return_inverse=True)
    table = np.array([_shortest(value) for value in distinct.tolist()], dtype=object)
    texts = table[positions.ravel()].tolist()
    rows = [', '.join(texts[start : start + VALUES_PER_ROW]) for start in range(0, len(texts), VALUES_PER_ROW)]
    return '\n    ' + ', \\\n    '.join(rows) if rows else ''


@dataclass(frozen=True)
class Operand:
    """A value the adder-graph template reads: `data[index]` (source 'data', an input) or `v<index>`,
    negated or not, times the power-of-two constant `constant` when it names one."""

    source: str
    index: int
    negative: bool
    constant: str | None


@dataclass(frozen=True)
class IntegerOperand:
    """A raw integer the C-simulation form of an adder graph reads: `x[index]` or `v<index>`, times
    `factor` (a power of two: a left shift), negated or not."""

    source: str
    index: int
    negative: bool
    factor: int


@dataclass
class IntegerGraphCode:
    """The C-simulation form of an adder graph: the same additions on raw integers (`long long`, every value
    and shifted operand checked to fit 62 bits), which g++ compiles far faster than thousands of distinct
    fixed-point types. `input_scale`: (C++ type, literal) of 2**fractional(input), turning an input into
    its raw integer (None: integer inputs); `adders`: (index, left, right, divisor: the sum's common power
    of two, divided out exactly); `outputs`: (output index, negative, source, index, constant name) with
    `constants` (name, C++ type, literal) the power of two that scales the raw sum back into real units,
    through `wide_type` (a 64-bit integer-valued fixed type)."""

    input_scale: tuple[str, str] | None
    inputs: list[int]  # the inputs the graph reads (a zero weight row reads none)
    wide_type: str
    constants: list[tuple[str, str, str]]
    adders: list[tuple[int, IntegerOperand, IntegerOperand, int]]
    outputs: list[tuple[int, bool, str, int, str]]


@dataclass
class AdderGraphCode:
    """A layer's adder graph (Strategy 'distributed_arithmetic') as `adder_graph.j2` prints it: the
    static function `adder_graph(data, acc)` of its config struct, adding each output's exact sum of
    products into acc. `constants`: (name, C++ type, literal) of the powers of two the shifts multiply
    by; `adders`: (C++ type, index, left, right); `outputs`: (output index, operand)."""

    data_type: str
    n_in: int
    n_out: int
    constants: list[tuple[str, str, str]]
    adders: list[tuple[str, int, Operand, Operand]]
    outputs: list[tuple[int, Operand]]
    integer: IntegerGraphCode | None = None  # the C-simulation form; None: values too wide, the typed code runs


@dataclass
class LayerImpl:
    name: str
    kind: str
    header: str  # the nnet header declaring the kernel
    struct: str  # the config struct name
    base: str  # the nnet base config it extends
    statics: list[tuple[str, str, str]] = field(default_factory=list)  # (C type, name, value)
    typedefs: list[tuple[str, str]] = field(default_factory=list)  # (alias in the struct, type name)
    function: str = ''
    template_args: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)  # C arguments (inputs and outputs first)
    arrays: list[ConstArray] = field(default_factory=list)
    adder_graph: AdderGraphCode | None = None  # Strategy 'distributed_arithmetic' (distributed.py)


def exact_doubles(values: np.ndarray, precision: FixedPrecisionType, family: str, where: str) -> np.ndarray:
    """`values` quantized into `precision`, as doubles that the header prints and C++ converts back exactly.

    Every double is the quantized value itself, so the C++ conversion double -> type is exact and the
    firmware holds the very raw bits the Python twin computed; a type too wide for that is refused.
    """
    quantized = quantize(np.asarray(values, dtype=np.float64).ravel(), precision, family)
    doubles = quantized.to_double()
    if precision.width > EXACT_DOUBLE_BITS:
        back = quantize(doubles, precision, family)
        if not np.array_equal(np.asarray(back.raw, dtype=object), np.asarray(quantized.raw, dtype=object)):
            raise ValueError(
                f'{where}: {precision} values cannot be written exactly as doubles; use a type of at '
                f'most {EXACT_DOUBLE_BITS} bits'
            )
    return doubles


def _shortest(value: float) -> str:
    text = repr(float(value))
    return '0' if text in ('0.0', '-0.0') else text.removesuffix('.0')


def const_array(
    name: str, type_name: str, values: np.ndarray, precision: FixedPrecisionType, family: str, where: str
) -> ConstArray:
    doubles = exact_doubles(values, precision, family, where)
    shape = tuple(np.shape(values))
    low = float(doubles.min()) if doubles.size else 0.0
    high = float(doubles.max()) if doubles.size else 0.0
    return ConstArray(name, type_name, shape, low, high, int((doubles == 0).sum()), doubles)
