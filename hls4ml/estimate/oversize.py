"""One layer's estimated share of the configured device, for the oversize warning at conversion
(`hls4ml/model/checks.py`): the same rule and device table as `estimate()`, for one layer only."""

from __future__ import annotations

from typing import Any

from hls4ml.estimate import _target
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.devices import part_of
from hls4ml.estimate.model import layer_row
from hls4ml.model.ir import Layer


def layer_utilisation(model: Any, layer: Layer) -> tuple[dict[str, float], str] | None:
    """({resource: low estimate / device capacity}, part) of one layer, or None for a part the device
    table does not know (nothing to compare with)."""
    target, part, _ = _target(model, None)
    known = part_of(part)
    if known is None or part is None:
        return None
    context = RuleContext(model.graph, target.family, float(model.config.get('ClockPeriod', 5)), False)
    row, _ = layer_row(layer, context, target)
    shares = {
        name: value.low / known.resources[name] for name, value in row.resources.items() if known.resources.get(name)
    }
    return shares, part
