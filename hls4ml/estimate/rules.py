"""The estimator side of a layer kind: `@estimator_rule(Kind.X)` on its rule.

    @estimator_rule(Kind.ACTIVATION, Kind.HARD_ACTIVATION)
    def activation(layer: Layer, ctx: RuleContext) -> LayerModel: ...

registers `rule(layer, ctx) -> LayerModel` (latency, II and resources from the kernel's loops) in one
table keyed by kind. `model.py` imports every rule module in one explicit list and hands out the
finished table; a port (a model input) is not a circuit, so it has none. A layer whose rule cannot
read it gets a 'not modelled' row, never an error (docs/estimator.md, docs/adding-a-layer.md).
"""

from __future__ import annotations

from collections.abc import Callable

from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import KindRecord

Rule = Callable[[Layer, RuleContext], LayerModel]

REGISTERED: dict[str, Rule] = {}  # filled as the rule modules are imported (model.py)


def estimator_rule(*kinds: KindRecord) -> Callable[[Rule], Rule]:
    """Register the decorated function as the estimator rule of `kinds`; a kind with two rules fails
    at import."""

    def register(rule: Rule) -> Rule:
        for kind in kinds:
            if kind in REGISTERED:
                raise ValueError(
                    f'layer kind {kind} has two estimator rules: {REGISTERED[kind].__name__}, {rule.__name__}'
                )
            REGISTERED[kind] = rule
        return rule

    return register
