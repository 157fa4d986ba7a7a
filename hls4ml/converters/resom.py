"""ReSOM: two trained SOMs and their Hebbian lateral matrix -> a graph of two Inputs and one ReSOM layer.

`resom_graph` (`hls4ml/model/resom_graphs.py`) takes the two (n_units, n_in) codebooks, their grids and the
(n_units_x, n_units_y) lateral matrix; `convert_from_resom` reads two trained `minisom.MiniSom` objects and
reduces to it.
When only one map is labelled, the other map's labels come by divergence (docs/resom.md).
"""

from __future__ import annotations

from typing import Any

from hls4ml.api import ModelGraph
from hls4ml.converters.config import config_from_graph, create_config
from hls4ml.model.resom_graphs import divergent_labels, hebbian_lateral, minisom_codebook, resom_graph

__all__ = ['convert_from_resom', 'divergent_labels', 'hebbian_lateral', 'resom_graph']


def convert_from_resom(
    som_x: Any,
    som_y: Any,
    lateral: Any,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    labels_x: Any = None,
    labels_y: Any = None,
    output: str = 'label',
    **options: Any,
) -> ModelGraph:
    """Convert two trained MiniSoms and their lateral matrix. `options` are resom_graph's (distance,
    source, combine, iterations, beta_x, beta_y) and create_config's (io_type, ...). Without
    `hls_config` every type is inferred exact; predict() takes [x, y]."""
    names = ('distance', 'source', 'combine', 'iterations', 'beta_x', 'beta_y')
    layer_options = {name: options.pop(name) for name in names if name in options}
    (codebook_x, grid_x), (codebook_y, grid_y) = minisom_codebook(som_x, 'som_x'), minisom_codebook(som_y, 'som_y')
    graph, origin = resom_graph(
        codebook_x, grid_x, codebook_y, grid_y, lateral, labels_x, labels_y, output, **layer_options
    )
    config = create_config(output_dir, project_name, backend, **options)
    config['HLSConfig'] = hls_config or config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    return ModelGraph(config, graph, origin)
