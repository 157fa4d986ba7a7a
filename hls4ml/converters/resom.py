"""ReSOM: trained SOMs and their Hebbian lateral matrices -> a graph of Inputs and one ReSOM layer.

`resom_graph` (`hls4ml/model/resom_graphs.py`) takes the two (n_units, n_in) codebooks, their grids and the
(n_units_x, n_units_y) lateral matrix; `resom_maps_graph` (`hls4ml/model/resom_maps_graphs.py`) takes M
codebooks and one matrix per pair of maps. `convert_from_resom` reads trained `minisom.MiniSom` objects
(two, or a list of M) and reduces to them.
When only some maps are labelled, the others' labels come by divergence (docs/resom.md).
"""

from __future__ import annotations

from typing import Any

from hls4ml.api import ModelGraph
from hls4ml.converters.config import config_from_graph, create_config
from hls4ml.model.resom_graphs import divergent_labels, hebbian_lateral, minisom_codebook, resom_graph
from hls4ml.model.resom_maps_graphs import divergent_map_labels, hebbian_laterals, resom_maps_graph

__all__ = [
    'convert_from_resom',
    'divergent_labels',
    'divergent_map_labels',
    'hebbian_lateral',
    'hebbian_laterals',
    'resom_graph',
    'resom_maps_graph',
]

LAYER_OPTIONS = ('distance', 'source', 'combine', 'iterations')


def convert_from_resom(
    som_x: Any,
    som_y: Any = None,
    lateral: Any = None,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    labels_x: Any = None,
    labels_y: Any = None,
    output: str = 'label',
    **options: Any,
) -> ModelGraph:
    """Convert two trained MiniSoms and their lateral matrix (`som_x, som_y, lateral`), or a list of M
    MiniSoms and their pair matrices (`[som_0, ..., som_M-1], laterals`: a dict {(i, j): H_ij} or a list in
    pair order (0, 1), (0, 2), ..., (1, 2), ...; keyword `labels`: one entry per map, None for a map
    labelled by divergence; keyword `betas`: one or one per map). `options` are the layer's (distance,
    source, combine, iterations, beta_x, beta_y) and create_config's (io_type, ...). Without `hls_config`
    every type is inferred exact; predict() takes one input per map, in map order."""
    if isinstance(som_x, (list, tuple)):
        laterals = som_y if lateral is None else lateral
        graph, origin = _maps_graph(list(som_x), laterals, output, options)
    else:
        layer_options = {name: options.pop(name) for name in (*LAYER_OPTIONS, 'beta_x', 'beta_y') if name in options}
        (codebook_x, grid_x) = minisom_codebook(som_x, 'som_x')
        (codebook_y, grid_y) = minisom_codebook(som_y, 'som_y')
        graph, origin = resom_graph(
            codebook_x, grid_x, codebook_y, grid_y, lateral, labels_x, labels_y, output, **layer_options
        )
    config = create_config(output_dir, project_name, backend, **options)
    config['HLSConfig'] = hls_config or config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    return ModelGraph(config, graph, origin)


def _maps_graph(soms: list[Any], laterals: Any, output: str, options: dict[str, Any]) -> tuple[Any, dict[str, str]]:
    """The graph of M MiniSoms (options' layer keys are taken out of `options`)."""
    if laterals is None:
        raise ValueError('ReSOM: give the lateral matrices of the maps (one per pair)')
    layer_options = {name: options.pop(name) for name in (*LAYER_OPTIONS, 'betas', 'labels') if name in options}
    books = [minisom_codebook(som, f'som {index}') for index, som in enumerate(soms)]
    return resom_maps_graph(
        [book for book, _ in books], [grid for _, grid in books], laterals, output=output, **layer_options
    )
