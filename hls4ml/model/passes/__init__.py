"""Graph passes: one file, one verb-named function `name(graph, context)`; the order lives in `flow.py`.

How to write one: take a `Graph` and a `PassContext`, edit the graph in place through its methods
(`remove_layer`, layer `types`/`attributes`/`weights`), and say in the docstring what the pass
requires and what holds after it. Raise `ValueError` naming the layer for anything it cannot do.
"""

import warnings
from dataclasses import dataclass, field

from hls4ml.model.types import FixedPrecisionType, PrecisionType


@dataclass
class PassContext:
    """What passes may read besides the graph: the model-level precision settings."""

    default_precision: PrecisionType
    maximum: FixedPrecisionType | None = None
    io_type: str = 'io_parallel'
    maximum_is_default: bool = False  # no Precision 'maximum' in the config: quantized layers are not capped
    cap: FixedPrecisionType | None = None  # the cap of the layer infer_precision is resolving (set by it)
    warnings: list[str] = field(default_factory=list)
    capped: list[tuple[FixedPrecisionType, FixedPrecisionType]] = field(default_factory=list)  # (needed, given)

    def warn(self, message: str) -> None:
        """Record and emit a warning (a UserWarning, so scripts and pytest see it)."""
        self.warnings.append(message)
        warnings.warn(message, UserWarning, stacklevel=3)
