"""hls4ml 1.x path of the profiling functions (`numerical`, `compare`, ...), which live in
`hls4ml.utils.profiling` (they run the frameworks and draw with matplotlib, above the IR). Loaded on
first use, so importing the IR never imports them (the import-linter contracts in pyproject.toml name
this one exception)."""

from typing import Any


def __getattr__(name: str) -> Any:
    from hls4ml.utils import profiling

    return getattr(profiling, name)
