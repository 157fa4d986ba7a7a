"""The lowering of every layer kind, in one table: the lowering modules, listed here, register their
functions with `@lowering` (`registry.py`). A new lowering module is one more entry in
`LOWERING_MODULES`; `test/unit/test_kind_records.py` fails naming any kind without a lowering.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hls4ml.backends.common import (
    lowering,
    lowering_attention,
    lowering_gather,
    lowering_moe,
    lowering_quantizer,
    lowering_recurrent,
    lowering_resom,
    lowering_resom_maps,
    lowering_router,
    lowering_sequence,
    lowering_spatial,
    lowering_structure,
    lowering_topk,
)
from hls4ml.backends.common.registry import REGISTERED, KindLowering

# every module with @lowering functions; importing them fills the table
LOWERING_MODULES = (
    lowering,
    lowering_attention,
    lowering_gather,
    lowering_moe,
    lowering_quantizer,
    lowering_resom,
    lowering_resom_maps,
    lowering_router,
    lowering_sequence,
    lowering_recurrent,
    lowering_spatial,
    lowering_structure,
    lowering_topk,
)

KIND_LOWERINGS: Mapping[str, KindLowering] = MappingProxyType(REGISTERED)

__all__ = ['KIND_LOWERINGS', 'LOWERING_MODULES', 'KindLowering']
