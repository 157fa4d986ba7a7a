"""hls4ml 1.x path of `ModelGraph`, which lives in `hls4ml.api.model_graph` (it drives the writer, the
backends and the C-simulation, which sit above the IR). Loaded on first use, so importing the IR never
imports them (the import-linter contracts in pyproject.toml name this one exception)."""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == 'ModelGraph':
        from hls4ml.api.model_graph import ModelGraph

        return ModelGraph
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
