"""Checks that a saved figure is a real picture: its size, and that it is not blank."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def assert_picture(path: Path, min_width: int = 200, min_height: int = 150, min_colours: int = 4) -> np.ndarray:
    """Open a PNG with matplotlib, check its size, its pixel variance and its number of distinct colours."""
    import matplotlib.image

    assert path.is_file() and path.stat().st_size > 1000, f'{path} is missing or nearly empty'
    pixels = matplotlib.image.imread(str(path))
    height, width = pixels.shape[:2]
    assert width >= min_width and height >= min_height, f'{path}: only {width}x{height} pixels'
    rgb = np.round(pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    assert float(rgb.astype(float).var()) > 10.0, f'{path} is (nearly) one flat colour'
    colours = np.unique(rgb, axis=0)
    assert len(colours) >= min_colours, f'{path} has only {len(colours)} distinct colours'
    return pixels
