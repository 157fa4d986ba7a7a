"""Self-organizing maps -> a graph of an Input and one SOM layer (docs/som.md).

`som_graph` (`hls4ml/model/som_graphs.py`) takes any SOM as an (n_units, n_in) codebook, its grid and its
metric; the MiniSom entry points read a trained `minisom.MiniSom` (its `_weights` (rows, cols, n_in),
row-major, and its `_activation_distance`) and reduce to it. Other SOM libraries reduce to it the same way.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from hls4ml.api import ModelGraph
from hls4ml.converters.config import config_from_graph, create_config
from hls4ml.model.ir import Graph
from hls4ml.model.som_graphs import minisom_distance, som_graph, som_layer_parts

__all__ = ['config_from_minisom', 'convert_from_minisom', 'minisom_unit_labels', 'som_graph', 'som_layer_parts']


def minisom_unit_labels(som: Any, data: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """One label per unit (flat, row-major): the majority label of the samples it wins (ties: the
    smallest label); a unit that wins none takes the label of the nearest labelled unit on the grid
    (ties: the lowest index)."""
    rows, cols = som._weights.shape[:2]
    majority = {
        position[0] * cols + position[1]: min(counts, key=lambda label: (-counts[label], label))
        for position, counts in som.labels_map(data, targets).items()
        if isinstance(counts, Counter) and counts
    }
    if not majority:
        raise ValueError('minisom_unit_labels: no unit wins any sample')
    labelled = np.array(sorted(majority))
    grid = np.stack([labelled // cols, labelled % cols], axis=1)
    labels = np.zeros(rows * cols)
    for unit in range(rows * cols):
        nearest = labelled[np.argmin(((grid - (unit // cols, unit % cols)) ** 2).sum(axis=1))]
        labels[unit] = majority[int(nearest)]
    return labels


def _minisom_graph(
    som: Any, distance: str | None, output: str, labels: Any, beta: float = 1.0
) -> tuple[Graph, dict[str, str]]:
    weights = np.asarray(som._weights, dtype=np.float64)
    rows, cols, n_in = weights.shape
    chosen = distance or minisom_distance(som)
    topology = getattr(som, 'topology', 'rectangular')  # hexagonal: 'coordinates' are get_euclidean_coordinates()
    return som_graph(weights.reshape(rows * cols, n_in), (rows, cols), chosen, output, labels, topology, beta)


def config_from_minisom(
    som: Any,
    granularity: str = 'name',
    default_precision: str = 'fixed<16,6>',
    default_reuse_factor: int = 1,
    max_precision: str | None = None,
    distance: str | None = None,
    output: str = 'index',
    labels: Any = None,
    beta: float = 1.0,
) -> dict[str, Any]:
    """The HLSConfig of a MiniSom: with granularity 'name' the SOM's types are all 'auto' (inferred exact)."""
    graph, _ = _minisom_graph(som, distance, output, labels, beta)
    return config_from_graph(graph, granularity, default_precision, default_reuse_factor, max_precision)


def convert_from_minisom(
    som: Any,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    distance: str | None = None,
    output: str = 'index',
    labels: Any = None,
    beta: float = 1.0,
    **kwargs: Any,
) -> ModelGraph:
    """Convert a trained `minisom.MiniSom`. `distance` overrides (or names, for a user callable) the
    metric; `output` is one of SOM_OUTPUTS; `labels` (one per unit, e.g. `minisom_unit_labels`) for
    output 'label'; `beta` for output 'activities'. A hexagonal MiniSom's 'coordinates' are its
    Euclidean unit coordinates. Without `hls_config`, `config_from_minisom` gives exact inferred types."""
    graph, origin = _minisom_graph(som, distance, output, labels, beta)
    config = create_config(output_dir, project_name, backend, **kwargs)
    config['HLSConfig'] = hls_config or config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    return ModelGraph(config, graph, origin)
