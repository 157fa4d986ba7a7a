"""The adder graphs of Strategy 'distributed_arithmetic' (backends/common/distributed.py) and the checks of
their accumulator (model/passes/check_distributed.py), on real models built through the conversion flow
and real da4ml solutions: every value's type holds it, the outputs are the exact products, zero weights
cost nothing, and accum types with which the graph could differ from Latency are refused by name."""

from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np
import pytest
from unit.estimate.estimate_models import dense_model, raw_weights

from hls4ml.backends.common import distributed
from hls4ml.backends.common.distributed import AdderGraph, Term, solve_layer
from hls4ml.model.types import FixedPrecisionType

pytest.importorskip('da4ml', reason="da4ml is not installed (pip install 'hls4ml[da]')")

DATA = FixedPrecisionType(16, 6)  # the models' input type: 10 fractional bits


def da_dense(raw: np.ndarray, **types: str):
    """x (fixed<16,6>) -> Dense with weights of raw integers `raw` (fixed<16,6>), Strategy DA."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return dense_model(raw_weights(raw), strategy='distributed_arithmetic', types=types or None)


def evaluate(graph: AdderGraph, inputs: list[int]) -> tuple[list[int], list[int]]:
    """Exact integer evaluation of the graph on raw inputs (units of 2**-10): every value in units of
    2**-10 * 2**-(its fractional bits - 10), checked against its type; the outputs' raw sums of products."""
    values: dict[int, tuple[int, int]] = {i: (x, DATA.fractional) for i, x in enumerate(inputs)}  # (raw, frac)

    def term(t: Term, fractional: int) -> int:
        raw, frac = values[t.node]
        shift = fractional - frac + t.shift  # into units of 2**-fractional
        scaled = raw << shift if shift >= 0 else raw >> -shift
        assert shift >= 0 or raw % (1 << -shift) == 0, 'a shift dropped bits'
        return -scaled if t.negative else scaled

    for adder in graph.adders:
        precision = adder.precision
        raw = term(adder.left, precision.fractional) + term(adder.right, precision.fractional)
        assert precision.raw_min <= raw <= precision.raw_max, f'v{adder.node} = {raw} overflows {precision}'
        values[adder.node] = (raw, precision.fractional)
    product_fractional = DATA.fractional + graph.weight_fractional
    outputs = [0 if t is None else term(Term(t.node, t.shift, t.negative), DATA.fractional) for t in graph.outputs]
    return outputs, [product_fractional] * len(outputs)


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_the_graph_computes_the_exact_products_in_exact_types(seed: int) -> None:
    rng = np.random.default_rng(seed)
    raw = rng.integers(-300, 300, size=(9, 6))
    raw[rng.random(raw.shape) < 0.3] = 0
    raw[:, 2] = 0  # an all-zero output
    raw[:, 3] = [1 << int(k) for k in rng.integers(0, 8, size=9)]  # powers of two
    model = da_dense(raw)
    graph = solve_layer(model.graph, model.graph.layers['fc'], 'ap')
    assert graph.outputs[2] is None
    extremes = [[DATA.raw_min] * 9, [DATA.raw_max] * 9, [0] * 9]
    for inputs in extremes + [list(map(int, rng.integers(DATA.raw_min, DATA.raw_max + 1, size=9))) for _ in range(50)]:
        outputs, _ = evaluate(graph, inputs)
        expected = [sum(x * int(w) for x, w in zip(inputs, column, strict=True)) for column in raw.T]
        # the graph's outputs are in units of 2**-10 before the weights' 2**-10: the raw products
        assert outputs == expected


def test_powers_of_two_and_zeros_need_no_adder() -> None:
    """A column of one power of two is a shifted input; a zero column is no term at all."""
    model = da_dense(np.array([[4, 0], [0, 0]]))
    graph = solve_layer(model.graph, model.graph.layers['fc'], 'ap')
    assert graph.adders == ()
    assert graph.outputs[1] is None
    assert graph.outputs[0] == Term(0, 2, False)


def test_a_rounding_accumulator_is_refused() -> None:
    """accum with 8 fractional bits cannot hold a product of 10 + 10 (odd weights): Latency would round."""
    with pytest.raises(ValueError, match=r"'fc'.*distributed_arithmetic.*at least 20 fractional bits; it has 8"):
        da_dense(np.array([[3, 5], [7, 1]]), accum='fixed<24,16>')


def test_weights_with_trailing_zeros_need_fewer_accumulator_bits() -> None:
    """Weights that are multiples of 2**4 in raw units have 6 fractional bits: 10 + 6 suffice."""
    da_dense(np.array([[16, 48], [-32, 0]]), accum='fixed<32,16>')


def test_a_saturating_accumulator_that_can_overflow_is_refused() -> None:
    with pytest.raises(ValueError, match=r"'fc'.*saturating accum_t.*overflow.*Strategy 'Latency'"):
        da_dense(np.array([[1024, 1024], [1024, 1024]]), accum='fixed<28,6,TRN,SAT>')


def test_a_saturating_accumulator_that_cannot_overflow_is_accepted() -> None:
    """|x| <= 32, |w| <= 1: sums within +-64 plus the zero bias fit fixed<28,8> (+-128)."""
    da_dense(np.array([[1024, -1024], [1024, 512]]), accum='fixed<28,8,TRN,SAT>')


def test_a_narrow_wrapping_accumulator_is_accepted() -> None:
    da_dense(np.array([[1024, -1024], [1024, 512]]), accum='fixed<22,2>')


def test_conversion_names_the_missing_solver_with_the_install_command(monkeypatch) -> None:
    monkeypatch.setattr(importlib.util, 'find_spec', lambda name, *args: None if name == 'da4ml' else True)
    with pytest.raises(ImportError, match=r"pip install 'hls4ml\[da\]' \(layer 'fc'"):
        da_dense(np.array([[3, 1], [1, 2]]))


def test_the_missing_solver_is_named_with_the_install_command(monkeypatch) -> None:
    model = da_dense(np.array([[3, 1], [1, 2]]))
    monkeypatch.setitem(sys.modules, 'da4ml.cmvm', None)  # `from da4ml.cmvm import solve` raises ImportError
    distributed._solve.cache_clear()
    with pytest.raises(ImportError, match=r"pip install 'hls4ml\[da\]'"):
        solve_layer(model.graph, model.graph.layers['fc'], 'ap')
    distributed._solve.cache_clear()


def test_nan_weights_never_reach_the_solver() -> None:
    """Refused by the graph verifier, naming the layer, before any pass of the strategy runs."""
    with pytest.raises(Exception, match=r"'fc'.*NaN or infinite"):
        da_dense(np.array([[1.0, np.nan], [2.0, 3.0]]))
