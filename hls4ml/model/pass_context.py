"""What passes (and the precision rules they call) may read besides the graph: `PassContext`, the
model-level precision settings, and the warnings they emit."""

import warnings
from dataclasses import dataclass, field

from hls4ml.model.types import FixedPrecisionType, PrecisionType

DEFAULT_MAXIMUM_PRECISION = FixedPrecisionType(48, 24)
"""The cap of every 'auto' type of a float layer when the config names no `Precision: {'maximum': ...}`
(docs/quantization.md): the width of a DSP48 accumulator, so a sum stays inside one DSP. Without a cap the
exact types of float models grow by the input's and the weights' fraction bits at every layer."""


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
