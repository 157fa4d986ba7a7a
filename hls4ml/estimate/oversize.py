"""One layer's estimated share of the configured device, for the oversize warning at conversion
(`hls4ml/api/checks.py`): the same rule and device table as `estimate()`, for one layer only, and
asked only when the cheap bound `backends.devices.surely_fits` cannot show that the layer fits: the caller
checks it before importing the estimator (conversion time matters)."""

from __future__ import annotations

from hls4ml.backends.base import Design
from hls4ml.backends.devices import part_of
from hls4ml.estimate import _target
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.model import layer_model, layer_row
from hls4ml.model.ir import Layer


def layer_utilisation(design: Design, layer: Layer, products: int) -> tuple[dict[str, float], str] | None:
    """({resource: low estimate / device capacity}, part) of a layer that unrolls `products`
    multiplications; None for a part the device table does not know."""
    target, part, _ = _target(design, None)
    known = part_of(part)
    if known is None or part is None:
        return None
    period = float(design.config.get('ClockPeriod', 5))
    context = RuleContext(design.graph, target.family, period, False, target.vendor)
    model, why = layer_model(layer, context)
    row = layer_row(layer, model, why, target)
    shares = {
        name: value.low / known.resources[name] for name, value in row.resources.items() if known.resources.get(name)
    }
    return shares, part
