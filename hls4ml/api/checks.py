"""Checks of a converted model that look at the whole configuration, run once at the end of conversion
(`ModelGraph.__init__`): they refuse or warn before anything is written, and stay cheap.

* the project name must not be one of the names the generated C++ and its headers always define
  (`model/names.py`; the names that depend on the model are checked when the project is lowered);
* in the ac family, a table activation cannot write its fixed-point table into an integer result;
* an io_parallel Latency layer that unrolls more multiplications than Vivado/Vitis HLS unrolls (4096 per
  loop nest), or whose estimated resources exceed the configured device, gets a UserWarning naming the
  layer, the count and what to do: synthesis would take hours and fail, C-simulation works regardless.

`check_build_keywords` runs at `build()`: an unknown keyword is refused listing the backend's.
"""

from __future__ import annotations

import importlib
import inspect
import math
import warnings
from typing import Any

from hls4ml.backends.base import Backend, Design
from hls4ml.backends.devices import part_of, surely_fits
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import CONVOLUTIONS, DEPTHWISE_CONVOLUTIONS, TABLE_ACTIVATIONS, Kind
from hls4ml.model.names import project_name_problem
from hls4ml.model.passes.validate_reuse_factor import valid_reuse_factors
from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType, PrecisionType

UNROLL_LIMIT = 4096  # multiplications Vivado/Vitis HLS unrolls in one loop nest before it gives up
ESTIMATE_FROM = 1024  # products above which a layer's resources are compared with the device


def check_model(design: Design, warned: list[str]) -> None:
    """Refuse a reserved project name and integer results of fixed-point tables in the ac family;
    warn on each oversize Latency layer (each warning is also appended to `warned`)."""
    problems = [project_name_problem(design.project_name), *table_into_integer(design)]
    if any(problems):
        raise ValueError('; '.join(problem for problem in problems if problem))
    for message in oversize_layers(design):
        warned.append(message)
        warnings.warn(message, UserWarning, stacklevel=4)


def table_into_integer(design: Design) -> list[str]:
    """ac_int cannot be assigned an ac_fixed (g++ stops at a static_assert): a table activation whose
    result is an integer type writes its fixed-point table values into it. `ModelGraph._check_backend_gaps`
    refuses the other integer results of fixed-point operands; the table is an operand only of the
    activations that read one (ReLU's unused table type must not refuse it)."""
    if design.backend.family != 'ac':
        return []
    return [
        _integer_table_message(layer, width, design.backend.name)
        for layer in design.graph.layers.values()
        if layer.attributes.get('activation') in TABLE_ACTIVATIONS
        and (width := _integer_width(layer.types.get('result'))) is not None
        and not isinstance(layer.types.get('table'), IntegerPrecisionType)
    ]


def _integer_width(precision: PrecisionType | None) -> int | None:
    return precision.width if isinstance(precision, IntegerPrecisionType) else None


def _integer_table_message(layer: Layer, width: int, backend: str) -> str:
    return (
        f'{layer.describe()}: the result type {layer.types["result"]} is an integer type, which the values of its '
        f'{layer.attributes["activation"]} table ({layer.types["table"]}) cannot be written into with the '
        f"{backend} backend; use 'fixed<{width},{width}>' "
        f"(the same values, floored as ac_int does) in hls_config['LayerName'][{layer.name!r}]['Precision']['result']"
    )


def oversize_layers(design: Design) -> list[str]:
    """One message per io_parallel Latency layer beyond the unroll limit or the device's resources."""
    if design.io_type != 'io_parallel':
        return []
    messages = []
    for layer in design.graph.layers.values():
        matrix = unrolled_matrix(layer)
        if matrix is None or layer.attributes.get('strategy') != 'latency':
            continue
        rows, cols, copies = matrix
        products = rows * cols * copies
        if products > UNROLL_LIMIT:
            messages.append(_unroll_message(layer, products, rows, cols))
        elif products > ESTIMATE_FROM:
            messages += _device_message(design, layer, products, rows, cols)
    return messages


def unrolled_matrix(layer: Layer) -> tuple[int, int, int] | None:
    """(rows, columns, copies) of the weight matrix a Latency layer multiplies fully unrolled: Dense's
    n_in x n_out; a convolution's window x n_filt once per pixel of its ParallelizationFactor."""
    attributes = layer.attributes
    if layer.kind == Kind.DENSE:
        return attributes['n_in'], attributes['n_out'], 1
    if layer.kind in CONVOLUTIONS:
        window = attributes['filt_width'] * attributes.get('filt_height', 1)
        rows = window * (1 if layer.kind in DEPTHWISE_CONVOLUTIONS else attributes['n_chan'])
        return rows, attributes['n_filt'], int(attributes.get('parallelization_factor', 1))
    return None


def _unroll_message(layer: Layer, products: int, rows: int, cols: int) -> str:
    reuse = _resource_reuse(rows, cols, math.ceil(products / UNROLL_LIMIT))  # each parallel pixel has its block
    return (
        f'{layer.describe()}: the Latency strategy unrolls {products} multiplications at once in this layer, '
        f'beyond the {UNROLL_LIMIT} that Vivado/Vitis HLS unrolls: synthesis will fail or run for hours '
        f'(C-simulation is unaffected). Use Strategy: Resource with ReuseFactor {reuse} or more for this layer '
        "(hls_config['LayerName']), or a smaller layer"
    )


def _device_message(design: Design, layer: Layer, products: int, rows: int, cols: int) -> list[str]:
    """The estimator's share of the configured part that `layer` needs; [] when it fits or is unknown.
    The estimator is imported here, only for the layers the cheap bound cannot show to fit (about 0.012 s)."""
    if _surely_fits(design, layer, products):
        return []
    from hls4ml.estimate.oversize import layer_utilisation

    estimated = layer_utilisation(design, layer, products)
    if estimated is None:
        return []
    shares, part = estimated
    resource, share = max(shares.items(), key=lambda item: item[1], default=('', 0.0))
    if share <= 1:
        return []
    return [
        f'{layer.describe()}: its {products} unrolled multiplications need about {share:.1f}x the {resource} of '
        f'{part} (see hls_model.estimate()). Use Strategy: Resource with ReuseFactor '
        f'{_resource_reuse(rows, cols, math.ceil(share))} or more for this layer, a larger part, or a smaller layer'
    ]


def _surely_fits(design: Design, layer: Layer, products: int) -> bool:
    """`devices.surely_fits` on the configured part (or the backend's default; an unknown part: nothing to
    compare with), with the estimator's widths: a non-fixed type counts 16 bits (estimate.primitives.width_of)."""
    known = part_of(design.config.get('Part') or design.backend.default_part)
    if known is None:
        return True
    types = (design.graph.input_type(layer), layer.types.get('weight'), layer.types.get('accum'))
    widths = [precision.width if isinstance(precision, FixedPrecisionType) else 16 for precision in types]
    return surely_fits(known, products, *widths)


def _resource_reuse(rows: int, cols: int, needed: int) -> int:
    """The smallest reuse factor of at least `needed` that the Resource kernel accepts for the matrix."""
    if rows * cols > 1 << 22:  # listing the divisors of a huge matrix would cost more than the advice is worth
        return needed
    return next((factor for factor in valid_reuse_factors(rows, cols) if factor >= needed), rows * cols)


def build_keywords(backend: Backend) -> list[str]:
    """The keyword arguments `build()` takes on `backend`: those of its build driver (`backends/<vendor>/build.py`:
    `build_project`'s parameters, or the names in its OPTIONS table when it takes them by name)."""
    driver = importlib.import_module(type(backend).__module__.rsplit('.', 1)[0] + '.build')
    parameters = inspect.signature(driver.build_project).parameters.values()
    named = [parameter.name for parameter in parameters if parameter.kind is parameter.POSITIONAL_OR_KEYWORD]
    return [*named[1:], *getattr(driver, 'OPTIONS', {})]  # named[0] is the design


def check_build_keywords(backend: Backend, keywords: dict[str, Any]) -> None:
    """Refuse an unknown `build()` keyword naming the accepted ones (rather than a TypeError from inside)."""
    accepted = build_keywords(backend)
    unknown = sorted(set(keywords) - set(accepted))
    if unknown:
        raise TypeError(
            f'build() got unknown option(s) {", ".join(map(repr, unknown))} for the {backend.name} backend; '
            f'it accepts {", ".join(accepted)}'
        )
