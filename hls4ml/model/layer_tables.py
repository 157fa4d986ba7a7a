"""Which lookup tables a layer reads, chosen from its types (shared by the lowering, the estimator
and the interpreter): its kind's `tables` rule (`hls4ml/model/kinds/`)."""

from __future__ import annotations

from hls4ml.model.ir import Layer
from hls4ml.model.kinds import LAYER_KINDS
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import FixedPrecisionType


def layer_tables(layer: Layer, input_type: FixedPrecisionType) -> dict[str, TableSpec]:
    """The tables of a layer, keyed by their config-struct prefix ('' for one-table activations)."""
    rule = LAYER_KINDS[layer.kind].tables
    if rule is None:
        raise ValueError(f'{layer.describe()}: a {layer.kind} layer reads no lookup tables')
    return rule(layer, input_type)
