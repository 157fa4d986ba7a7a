"""Distributed arithmetic (Strategy 'distributed_arithmetic'): a layer's constant matrix product as an
adder graph, a multiplier-free network of shifts and additions.

da4ml's solver (`da4ml.cmvm.solve`, an optional dependency: `pip install hls4ml[da]`) finds the graph for
the weights as exact integers and the input type's raw range. Its answer is re-derived here in exact
integer arithmetic, never trusted blindly: every value of the graph carries the integer coefficients it
has on the layer's inputs, the outputs must reproduce the weight matrix exactly, and each value's C++
type (`FixedPrecisionType`) is the narrowest that holds its whole range. The templates print the graph.

Why it is bit-exact with Latency: the graph forms each output's exact sum of products S_j; the kernel
then does `acc_j = bias_j; acc_j += S_j; res_j = acc_j`. Latency adds the products one by one into
accum_t. The two agree when no step of Latency rounds (every product lies on accum_t's grid) and either
accum_t wraps (modular sums agree whatever the order) or no partial sum can leave its range.
`check_accumulator` (model/passes/check_distributed.py) refuses any other combination by name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.passes.check_distributed import INSTALL_HINT, check_accumulator, layer_matrix, trailing_zeros
from hls4ml.model.types import FixedPrecisionType

FLOAT32_EXACT_BITS = 24  # the solver takes the weights as float32: integers up to 2**24 are exact


@dataclass(frozen=True)
class Term:
    """`(-1 if negative) * 2**shift * value[node]`; nodes 0 .. n_in - 1 are the layer's inputs."""

    node: int
    shift: int
    negative: bool


@dataclass(frozen=True)
class Adder:
    """One adder: `left + right` (terms), exact in `precision`; `depth` counts adders from the inputs."""

    node: int
    left: Term
    right: Term
    precision: FixedPrecisionType
    depth: int


@dataclass(frozen=True)
class AdderGraph:
    """The graph of one matrix: input i is real-valued (the layer's input type); output j is
    `2**-weight_fractional * term` (None: an all-zero column, the sum is 0)."""

    n_in: int
    n_out: int
    adders: tuple[Adder, ...]
    outputs: tuple[Term | None, ...]
    weight_fractional: int
    solver_cost: float  # da4ml's own cost figure of the solution (its adder count at the default settings)

    @property
    def adder_bits(self) -> int:
        """The adders' widths summed: about one LUT per bit (a carry-chain adder)."""
        return sum(adder.precision.width for adder in self.adders)

    @property
    def depth(self) -> int:
        return max((adder.depth for adder in self.adders), default=0)


@functools.lru_cache(maxsize=64)
def _solve(matrix_bytes: bytes, shape: tuple[int, int], low: int, high: int):  # -> da4ml.types.Pipeline
    try:
        from da4ml.cmvm import solve
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    kernel = np.frombuffer(matrix_bytes, dtype=np.float32).reshape(shape).copy()  # writable, as the solver needs
    # search_all_decompose_dc=False: one decomposition instead of all; measured on a 64 x 32 layer of 14-bit
    # weights, 7x faster for 0.4 % more adders
    return solve(kernel, qintervals=[(float(low), float(high), 1.0)] * shape[0], search_all_decompose_dc=False)


def solve_layer(graph: Graph, layer: Layer, family: str) -> AdderGraph:
    """The checked adder graph of a Dense or convolution layer (solutions cached per process)."""
    check_accumulator(graph, layer, family)
    matrix, weight_fractional = layer_matrix(layer, family)
    data = graph.input_type(layer)
    assert isinstance(data, FixedPrecisionType)
    widest = max((abs(int(value)).bit_length() for value in matrix.ravel()), default=0)
    if widest > FLOAT32_EXACT_BITS:
        raise ValueError(
            f"{layer.describe()}: Strategy 'distributed_arithmetic' takes weights of at most "
            f'{FLOAT32_EXACT_BITS} significant bits (the solver reads them as float32); this layer has {widest}. '
            'Use a narrower weight precision or Strategy Latency'
        )
    kernel = np.ascontiguousarray(matrix.astype(np.float32))
    pipeline = _solve(kernel.tobytes(), kernel.shape, data.raw_min, data.raw_max)
    return build_graph(pipeline, matrix, data, weight_fractional, layer.describe())


# ---- the solver's answer re-derived exactly ---------------------------------------------------------


@dataclass
class _Value:
    """value = 2**exponent * sum_i coefficients[i] * x_i over the raw input integers x_i."""

    coefficients: np.ndarray
    exponent: int
    depth: int


def _scaled(value: _Value, shift: int, negative: bool) -> _Value:
    return _Value(-value.coefficients if negative else value.coefficients, value.exponent + shift, value.depth)


def _sum(left: _Value, right: _Value) -> _Value:
    exponent = min(left.exponent, right.exponent)
    coefficients = left.coefficients * (1 << (left.exponent - exponent))
    coefficients = coefficients + right.coefficients * (1 << (right.exponent - exponent))
    common = min((trailing_zeros(int(c)) for c in coefficients if c), default=0)
    if common:
        coefficients = np.array([int(c) >> common for c in coefficients], dtype=object)
    return _Value(coefficients, exponent + common, max(left.depth, right.depth) + 1)


def value_precision(value: _Value, data: FixedPrecisionType) -> FixedPrecisionType:
    """The narrowest fixed type (real units: the input's) holding the value for every input in range."""
    products = (value.coefficients * data.raw_min, value.coefficients * data.raw_max)
    low, high = int(np.minimum(*products).sum()), int(np.maximum(*products).sum())
    fractional = data.fractional - value.exponent
    if low < 0:
        width = 1 + max((-low - 1).bit_length(), high.bit_length())
    else:
        width = max(high.bit_length(), 1)
    return FixedPrecisionType(width, width - fractional, signed=low < 0)


def build_graph(
    pipeline, matrix: np.ndarray, data: FixedPrecisionType, weight_fractional: int, where: str
) -> AdderGraph:
    """The solver's pipeline (stages of ops: copy an input, add or subtract a shifted value) as one
    graph over the layer's inputs, every value typed exactly; checked to compute `matrix`."""
    n_in, n_out = matrix.shape
    values = [_Value(np.array([int(i == j) for j in range(n_in)], dtype=object), 0, 0) for i in range(n_in)]
    adders: list[Adder] = []
    references: list[Term | None] = [Term(i, 0, False) for i in range(n_in)]
    for stage in pipeline.solutions:
        buffer: list[Term | None] = []
        for op in stage.ops:
            if op.opcode == -1:
                buffer.append(_shifted(references[op.id0], stage.inp_shifts[op.id0], False))
            elif op.opcode in (0, 1):
                right = _shifted(buffer[op.id1], op.data, op.opcode == 1)
                buffer.append(_add(buffer[op.id0], right, values, adders, data))
            else:
                raise ValueError(
                    f'{where}: the da4ml solver returned an operation (opcode {op.opcode}) that Strategy '
                    "'distributed_arithmetic' does not implement; use Strategy Latency"
                )
        references = [
            None if index < 0 else _shifted(buffer[index], shift, negative)
            for index, shift, negative in zip(stage.out_idxs, stage.out_shifts, stage.out_negs, strict=True)
        ]
    _check_reproduces(references, values, matrix, where)
    return AdderGraph(n_in, n_out, tuple(adders), tuple(references), weight_fractional, float(pipeline.cost))


def _shifted(term: Term | None, shift: int, negate: bool) -> Term | None:
    return None if term is None else Term(term.node, term.shift + int(shift), term.negative != bool(negate))


def _add(
    left: Term | None, right: Term | None, values: list[_Value], adders: list[Adder], data: FixedPrecisionType
) -> Term | None:
    """A new adder `left + right` (a zero operand needs none)."""
    if left is None or right is None:
        return right if left is None else left
    value = _sum(
        _scaled(values[left.node], left.shift, left.negative), _scaled(values[right.node], right.shift, right.negative)
    )
    node = len(values)
    values.append(value)
    adders.append(Adder(node, left, right, value_precision(value, data), value.depth))
    return Term(node, 0, False)


def _check_reproduces(outputs: list[Term | None], values: list[_Value], matrix: np.ndarray, where: str) -> None:
    """Each output's coefficients must be its weight column exactly (else the solver erred: refuse)."""
    for column, term in enumerate(outputs):
        expected = matrix[:, column]
        if term is None:
            correct = not any(expected)
        else:
            value = _scaled(values[term.node], term.shift, term.negative)
            up, down = max(value.exponent, 0), max(-value.exponent, 0)  # compare 2**e * c with w exactly
            correct = all(int(c) << up == int(w) << down for c, w in zip(value.coefficients, expected, strict=True))
        if not correct:
            raise ValueError(
                f"{where}: the adder graph of Strategy 'distributed_arithmetic' does not reproduce the weights of "
                f'output {column} (a solver fault); use Strategy Latency and report it'
            )
