"""Self-organizing maps -> a graph of an Input and one SOM layer (docs/som.md).

`som_graph` takes any SOM as an (n_units, n_in) codebook, its grid and its metric; the MiniSom entry
points read a trained `minisom.MiniSom` (its `_weights` (rows, cols, n_in), row-major, and its
`_activation_distance`) and reduce to it. Other SOM libraries reduce to `som_graph` the same way.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np

from hls4ml.model.graph import ModelGraph
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.layers import LAYER_KINDS, SOM_DISTANCES, SOM_OUTPUTS, SOM_TOPOLOGIES
from hls4ml.utils.config import config_from_graph, create_config

MINISOM_DISTANCES = {
    '_euclidean_distance': 'squared_euclidean',  # same BMU as the Euclidean distance, no square root
    '_manhattan_distance': 'manhattan',
    '_chebyshev_distance': 'chebyshev',
    '_cosine_distance': 'cosine',
}
ALIASES = {'euclidean': 'squared_euclidean'}


def som_layer_parts(
    codebook: np.ndarray,
    grid: tuple[int, int],
    distance: str,
    output: str,
    labels: np.ndarray | None = None,
    topology: str = 'rectangular',
    beta: float = 1.0,
    where: str = 'SOM',
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The checked attributes and weights of a SOM layer (every frontend builds its SOM from these).
    A cosine codebook is normalised row by row here; errors name `where`."""
    if topology not in SOM_TOPOLOGIES:
        raise ValueError(f'{where}: unsupported topology {topology!r}; expected one of {", ".join(SOM_TOPOLOGIES)}')
    distance = ALIASES.get(distance, distance)
    if distance not in SOM_DISTANCES:
        raise ValueError(f'{where}: unsupported distance {distance!r}; expected one of {", ".join(SOM_DISTANCES)}')
    if output not in SOM_OUTPUTS:
        raise ValueError(f'{where}: unsupported output {output!r}; expected one of {", ".join(SOM_OUTPUTS)}')
    if output == 'label' and labels is None:
        raise ValueError(f"{where}: output 'label' needs labels (one class per unit)")
    codebook = np.asarray(codebook, dtype=np.float64)
    rows, cols = (int(size) for size in grid)
    if codebook.ndim != 2 or codebook.shape[0] != rows * cols or rows < 1 or cols < 1:
        raise ValueError(f'{where}: a codebook of shape {codebook.shape} does not fit a {rows}x{cols} grid')
    if not np.all(np.isfinite(codebook)):
        raise ValueError(f'{where}: the codebook holds NaN or infinite values')
    if not (np.isfinite(beta) and beta > 0):
        raise ValueError(f'{where}: beta must be a finite positive number, got {beta}')
    if distance == 'cosine':
        norms = np.linalg.norm(codebook, axis=1, keepdims=True)
        codebook = codebook / np.where(norms > 0, norms, 1.0)
    weights = {'codebook': codebook}
    if output == 'label':
        weights['labels'] = np.asarray(labels, dtype=np.float64).reshape(-1)
    n_units, n_in = codebook.shape
    attributes = {'n_in': n_in, 'n_units': n_units, 'grid': (rows, cols), 'distance': distance, 'output': output}
    attributes.update(topology=topology, beta=float(beta))
    return attributes, weights


def som_graph(
    codebook: np.ndarray,
    grid: tuple[int, int],
    distance: str,
    output: str,
    labels: np.ndarray | None = None,
    topology: str = 'rectangular',
    beta: float = 1.0,
) -> tuple[Graph, dict[str, str]]:
    """An Input of n_in values and a SOM layer 'som' (`som_layer_parts`). `topology` ('rectangular',
    'hexagonal') sets what 'coordinates' gives; `beta` the width of the 'activities' kernel
    exp(-(d_n - d_bmu) / beta)."""
    attributes, weights = som_layer_parts(codebook, grid, distance, output, labels, topology, beta)
    n_in = attributes['n_in']
    graph = Graph()
    graph.add_layer(Layer('input', 'Input', [], ['input'], {'shape': (n_in,)}), [(n_in,)])
    graph.inputs.append('input')
    layer = Layer('som', 'SOM', ['input'], ['som'], attributes, weights, source_name='som', source_class='SOM')
    graph.add_layer(layer, [LAYER_KINDS['SOM'].output_shape(layer, [(n_in,)])])
    graph.outputs.append('som')
    return graph, {'input': 'input', 'som': 'som'}


def minisom_distance(som: Any) -> str:
    """The SOM distance of MiniSom's activation distance; refuses user callables."""
    name = getattr(som._activation_distance, '__name__', '')
    if name not in MINISOM_DISTANCES:
        raise ValueError(
            f'MiniSom activation distance {name or som._activation_distance!r} is not supported; pass '
            f'distance= one of {", ".join(SOM_DISTANCES)} if it computes one of them'
        )
    if name == '_chebyshev_distance':
        warnings.warn(
            'MiniSom 2.3.6 computes Chebyshev as max(x - w) without abs(); the SOM layer computes the '
            'true Chebyshev distance max|x - w|, so its BMU can differ from winner()',
            UserWarning,
            stacklevel=3,
        )
    return MINISOM_DISTANCES[name]


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
