"""The backend side of a layer kind: `@lowering(Kind.X, stream=...)` on its lowering function.

    @lowering(Kind.HARD_ACTIVATION, stream='nnet_activation_stream.h')
    def lower_hard_activation(layer: Layer, context: LoweringContext) -> LayerImpl: ...

registers, in one table keyed by kind (jax's `register_lowering`), the function that builds the
kind's `LayerImpl` (which names the array kernel's header) and the header of its streaming kernel,
which the project includes in io_stream. `kinds.py` imports every lowering module in one explicit list
and hands out the finished table; a port (a model input) is not lowered, so it has none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import KindRecord

Lowering = Callable[[Layer, LoweringContext], LayerImpl]


@dataclass(frozen=True)
class KindLowering:
    """How one kind becomes C++: `lower` builds its `LayerImpl`; in io_stream the project also includes
    `stream_header`, the header of its streaming kernel."""

    kind: KindRecord
    lower: Lowering
    stream_header: str


REGISTERED: dict[str, KindLowering] = {}  # filled as the lowering modules are imported (kinds.py)


def lowering(*kinds: KindRecord, stream: str) -> Callable[[Lowering], Lowering]:
    """Register the decorated function as the lowering of `kinds`, whose streaming kernels are in
    templates/nnet/`stream`; a kind lowered twice fails at import."""

    def register(lower: Lowering) -> Lowering:
        for kind in kinds:
            if kind in REGISTERED:
                raise ValueError(
                    f'layer kind {kind} has two lowerings: {REGISTERED[kind].lower.__name__}, {lower.__name__}'
                )
            REGISTERED[kind] = KindLowering(kind, lower, stream)
        return lower

    return register
