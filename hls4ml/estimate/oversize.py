"""One layer's estimated share of the configured device, for the oversize warning at conversion
(`hls4ml/api/checks.py`): the same rule and device table as `estimate()`, for one layer only, and
only when a cheap bound cannot show that the layer fits (conversion time matters)."""

from __future__ import annotations

import math

from hls4ml.backends.base import Design
from hls4ml.backends.devices import Part, part_of
from hls4ml.estimate import _target
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.model import layer_model, layer_row
from hls4ml.estimate.primitives import width_of
from hls4ml.model.ir import Layer

DSP_INPUTS = (27, 18)  # the narrowest DSP multiplier of the families in the table


def layer_utilisation(design: Design, layer: Layer, products: int) -> tuple[dict[str, float], str] | None:
    """({resource: low estimate / device capacity}, part) of a layer that unrolls `products`
    multiplications; None for a part the device table does not know, or when the layer surely fits."""
    target, part, _ = _target(design, None)
    known = part_of(part)
    if known is None or part is None or _surely_fits(design, layer, products, known):
        return None
    period = float(design.config.get('ClockPeriod', 5))
    context = RuleContext(design.graph, target.family, period, False, target.vendor)
    model, why = layer_model(layer, context)
    row = layer_row(layer, model, why, target)
    shares = {
        name: value.low / known.resources[name] for name, value in row.resources.items() if known.resources.get(name)
    }
    return shares, part


def _surely_fits(design: Design, layer: Layer, products: int, part: Part) -> bool:
    """True when even every product as a full array multiplier plus its adder in LUTs (data bits x weight
    bits + accumulator bits), and as DSP blocks of the narrowest kind, fits the part: far more than the
    estimator ever counts, so the estimate is skipped."""
    data = width_of(design.graph.input_type(layer))
    weight, accum = width_of(layer.types.get('weight')), width_of(layer.types.get('accum'))
    luts = part.resources.get('LUT') or part.resources.get('ALUT') or 0
    dsps = part.resources.get('DSP') or 0
    blocks = math.ceil(max(data, weight) / DSP_INPUTS[0]) * math.ceil(min(data, weight) / DSP_INPUTS[1])
    return products * (data * weight + accum) <= luts and products * blocks <= dsps
