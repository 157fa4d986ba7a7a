"""The intermediate representation, the ground floor of hls4ml: layer kinds and their records, the graph,
precision types, the fixed-point twin, config resolution, passes and the reference interpreter. It
imports nothing else of hls4ml (pyproject.toml's import-linter contracts check it).

`hls4ml.model.ModelGraph` (hls4ml 1.x) is `hls4ml.api.ModelGraph`, loaded on first use (`graph.py`)."""

from hls4ml.model.graph import __getattr__  # noqa: F401
