"""Self-organizing maps as IR: the checked attributes and weights of a SOM layer, and a graph of an Input and
one SOM layer (docs/som.md). Every frontend (the MiniSom entry points, the Keras and PyTorch SOM layers of
`hls4ml.nn`) builds its SOM from `som_layer_parts`; `som_graph` takes any SOM as an (n_units, n_in)
codebook, its grid and its metric.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, SOM_DISTANCES, SOM_OUTPUTS, SOM_TOPOLOGIES, Kind

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
    graph.add_layer(Layer('input', Kind.INPUT, [], ['input'], {'shape': (n_in,)}), [(n_in,)])
    graph.inputs.append('input')
    layer = Layer('som', Kind.SOM, ['input'], ['som'], attributes, weights, source_name='som', source_class='SOM')
    graph.add_layer(layer, [LAYER_KINDS[Kind.SOM].output_shape(layer, [(n_in,)])])
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
