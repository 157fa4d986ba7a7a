"""Every IR layer kind, one record each, gathered into `Kind`: `Kind.DENSE` IS Dense's record.

A kind is one block in its family module (`activations.py`, `products.py`, ...): its reference
kernel and its precision rule, when it has its own, as static methods of the family class, then its
`KindRecord` (`record.py`), which also holds its name, typed variables, weights, config keys,
settings, attribute choices, shape rules and lookup tables. `Kind` inherits every family class, so
`Kind.HARD_ACTIVATION` is visible to mypy and to readers, and a record compares, hashes and prints
as its name, which is hls4ml 1.x's IR class name (`Kind.DENSE == 'Dense'`, `layer.kind` stays a
plain string, `LayerType` configs written for 1.x still match). Code names kinds through `Kind`,
never as string literals, so a typo fails at import and `grep Kind.SOM` finds every use.

The backend side of a kind is its `@lowering` in `hls4ml/backends/common/`, its estimator rule an
`@estimator_rule` in `hls4ml/estimate/`; `test/unit/test_kind_records.py` fails naming any part a
kind lacks. How to add a kind: docs/adding-a-layer.md. A new family is a module here and one entry
in `FAMILIES` and in `Kind`'s bases.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hls4ml.model.ir import Layer
from hls4ml.model.kinds.activations import (
    ACTIVATIONS,
    BOUNDED_TABLE_ACTIVATIONS,
    HARD_ACTIVATIONS,
    LOSSLESS_ACTIVATIONS,
    PARAMETRIZED_ACTIVATIONS,
    SOFTMAX_IMPLEMENTATIONS,
    TABLE_ACTIVATIONS,
    Activations,
)
from hls4ml.model.kinds.arithmetic import MERGE_OPERATIONS, Arithmetic
from hls4ml.model.kinds.attention import Attention
from hls4ml.model.kinds.experts import Experts
from hls4ml.model.kinds.gathers import REDUCE_OPERATIONS, Gathers
from hls4ml.model.kinds.maps import (
    RESOM_COMBINES,
    RESOM_DISTANCES,
    RESOM_OUTPUTS,
    RESOM_SOURCES,
    RESOM_TYPES,
    SOM_DISTANCES,
    SOM_IMPLEMENTATIONS,
    SOM_OUTPUTS,
    SOM_TOPOLOGIES,
    Maps,
)
from hls4ml.model.kinds.pooling import POOL_OPERATIONS, Pooling
from hls4ml.model.kinds.products import Products
from hls4ml.model.kinds.record import COMMON_KEYS, KindRecord
from hls4ml.model.kinds.recurrent import RECURRENT_FUNCTIONS, Recurrent
from hls4ml.model.kinds.selection import ROUTER_OUTPUTS, SOFT_TOPK_MODES, TOPK_OUTPUTS, Selection
from hls4ml.model.kinds.sequence import Sequence
from hls4ml.model.kinds.structure import Moves, Sources

# the families in the order their kinds are listed (docs/layers.md, the completeness test)
FAMILIES = (
    Sources,
    Products,
    Recurrent,
    Attention,
    Pooling,
    Moves,
    Gathers,
    Arithmetic,
    Activations,
    Maps,
    Selection,
    Experts,
    Sequence,
)


class Kind(
    Sources,
    Products,
    Recurrent,
    Attention,
    Pooling,
    Moves,
    Gathers,
    Arithmetic,
    Activations,
    Maps,
    Selection,
    Experts,
    Sequence,
):
    """Every IR layer kind: `Kind.X` is kind X's `KindRecord`, which is also its name ('X')."""


def gather_records(families: tuple[type, ...]) -> dict[str, KindRecord]:
    """The records of `families`, keyed by name; a name or attribute defined twice fails at import
    (in `Kind` one family's attribute would silently hide the other's)."""
    records: dict[str, KindRecord] = {}
    attributes: set[str] = set()
    for family in families:
        for attribute, value in vars(family).items():
            if not isinstance(value, KindRecord):
                continue
            if value in records or attribute in attributes:
                raise ValueError(f'layer kind {attribute} = {value!r} of {family.__name__} is defined twice')
            records[value] = value
            attributes.add(attribute)
    return records


LAYER_KINDS: Mapping[str, KindRecord] = MappingProxyType(gather_records(FAMILIES))
# the values of config key 'Implementation' per kind, the default first
IMPLEMENTATIONS: dict[str, tuple[str, ...]] = {
    name: record.choices['implementation'] for name, record in LAYER_KINDS.items() if 'implementation' in record.choices
}

CONVOLUTIONS = (Kind.CONV1D, Kind.CONV2D, Kind.DEPTHWISE_CONV1D, Kind.DEPTHWISE_CONV2D)
DEPTHWISE_CONVOLUTIONS = (Kind.DEPTHWISE_CONV1D, Kind.DEPTHWISE_CONV2D)
# the kinds Strategy 'distributed_arithmetic' implements (an adder graph per weight matrix)
DISTRIBUTED_KINDS = (Kind.DENSE, *CONVOLUTIONS)
POOLINGS = (Kind.POOLING1D, Kind.POOLING2D)
GLOBAL_POOLINGS = (Kind.GLOBAL_POOLING1D, Kind.GLOBAL_POOLING2D)
ROUTERS = (Kind.ROUTER, Kind.EXPERT_CHOICE_ROUTER)
RECURRENT = (Kind.SIMPLE_RNN, Kind.LSTM, Kind.GRU)
# the spatial kinds by rank (1-D, 2-D), for frontends that know the rank of an operation
CONV_OF_RANK = {1: Kind.CONV1D, 2: Kind.CONV2D}
DEPTHWISE_CONV_OF_RANK = {1: Kind.DEPTHWISE_CONV1D, 2: Kind.DEPTHWISE_CONV2D}
POOLING_OF_RANK = {1: Kind.POOLING1D, 2: Kind.POOLING2D}
GLOBAL_POOLING_OF_RANK = {1: Kind.GLOBAL_POOLING1D, 2: Kind.GLOBAL_POOLING2D}
ZERO_PADDING_OF_RANK = {1: Kind.ZERO_PADDING1D, 2: Kind.ZERO_PADDING2D}
CROPPING_OF_RANK = {1: Kind.CROPPING1D, 2: Kind.CROPPING2D}


def is_port(layer: Layer) -> bool:
    """A model input (nothing to compute, lower or estimate); False for a kind without a record."""
    record = LAYER_KINDS.get(layer.kind)
    return record is not None and record.port


__all__ = [
    'ACTIVATIONS',
    'COMMON_KEYS',
    'CONVOLUTIONS',
    'CONV_OF_RANK',
    'CROPPING_OF_RANK',
    'DEPTHWISE_CONVOLUTIONS',
    'DEPTHWISE_CONV_OF_RANK',
    'DISTRIBUTED_KINDS',
    'FAMILIES',
    'GLOBAL_POOLINGS',
    'HARD_ACTIVATIONS',
    'GLOBAL_POOLING_OF_RANK',
    'IMPLEMENTATIONS',
    'LAYER_KINDS',
    'LOSSLESS_ACTIVATIONS',
    'MERGE_OPERATIONS',
    'PARAMETRIZED_ACTIVATIONS',
    'RECURRENT',
    'POOLINGS',
    'POOLING_OF_RANK',
    'POOL_OPERATIONS',
    'RECURRENT_FUNCTIONS',
    'REDUCE_OPERATIONS',
    'RESOM_COMBINES',
    'RESOM_DISTANCES',
    'RESOM_OUTPUTS',
    'RESOM_SOURCES',
    'RESOM_TYPES',
    'ROUTERS',
    'ROUTER_OUTPUTS',
    'SOFTMAX_IMPLEMENTATIONS',
    'SOFT_TOPK_MODES',
    'SOM_DISTANCES',
    'SOM_IMPLEMENTATIONS',
    'SOM_OUTPUTS',
    'SOM_TOPOLOGIES',
    'BOUNDED_TABLE_ACTIVATIONS',
    'TABLE_ACTIVATIONS',
    'TOPK_OUTPUTS',
    'ZERO_PADDING_OF_RANK',
    'Kind',
    'gather_records',
    'KindRecord',
    'is_port',
]
