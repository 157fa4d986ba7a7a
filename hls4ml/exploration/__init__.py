"""Design-space exploration of one model's configurations (precision, reuse factor, strategy, IO type)
on this machine or a Dask cluster: `hls4ml.explore(...)`, documented in docs/explore.md.

Modules: `space` (the settings and a point's configuration), `source` (the model the workers
convert), `evaluation` (what a worker computes), `running` (serial or Dask), `cache` (results by
content hash), `strategies` (grid, random, greedy), `front` (Pareto front, table, figure), `api`.
The package is called `exploration` so that importing it never replaces the function
`hls4ml.explore` (importing a package sets it as an attribute of its parent).
"""

from hls4ml.exploration.api import explore
from hls4ml.exploration.front import ExplorationResult
from hls4ml.exploration.space import Space

__all__ = ['ExplorationResult', 'Space', 'explore']
