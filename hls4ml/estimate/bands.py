"""The calibrated band printed around each point estimate (docs/estimator.md, "Calibration").

The band is what a user can plan with: the ratios of report to point estimate that held at least
90 % of the 40 calibration reports, widened to at least -20 % / +25 % because the reports kept back
are not seen here, and clipped to the bounds the tools' choices cannot leave (`Range.low`, `high`).
"""

from __future__ import annotations

from hls4ml.estimate.primitives import Range

# metric (a report column, lower case) -> (low, high) factors on the point
BANDS = {
    'latency': (0.8, 1.25),
    'dsp': (0.8, 1.25),
    'lut': (0.7, 1.6),
    'alut': (0.7, 1.6),
    'ff': (0.6, 1.5),
    'reg': (0.6, 1.5),
    'bram_18k': (0.8, 1.25),
    'ram': (0.8, 1.25),
}
WIDE_BAND = (0.5, 2.0)  # metrics the calibration set does not cover (URAM, MUL, AREA)


def band(metric: str, value: Range) -> tuple[float, float]:
    """The calibrated band around a point, clipped to the range's bounds."""
    low, high = BANDS.get(metric.lower(), WIDE_BAND)
    point = value.value
    return max(value.low, point * low), min(value.high, point * high)
