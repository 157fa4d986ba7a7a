"""What the Keras and PyTorch attention handlers share: how a masked score is written (docs/attention.md)."""

from __future__ import annotations

from hls4ml.model.types import FixedPrecisionType

# subtracted from (Keras: selected for) the scores of masked keys: far below any exp table window (a few
# units wide), so a masked key gets weight exactly 0 while the unmasked scores of a row span less than
# MASKED - 16
MASKED = 2.0**10
OFFSET_TYPE = FixedPrecisionType(13, 13, True)  # exact for 0, -MASKED and -2 MASKED, whatever the default type
KEEP_TYPE = FixedPrecisionType(1, 1, False)  # the 0 / 1 scale of the scores
