"""The rule of the M-map ReSOM (hls4ml/estimate/kinds_resom_maps.py): with two maps it counts the
lateral products as the two-map ReSOM's rule does (two constant products per non-zero entry of H), a
third map adds its pairs' products, a pruned pair costs nothing, and every output is modelled; under
Resource the folded multipliers fall as 1 / RF."""

from __future__ import annotations

import numpy as np
import pytest
from test_estimate_maps import CODEBOOK_X, CODEBOOK_Y, LATERAL, graph_model, resom_model, rule_model, shapes

from hls4ml.converters.resom import resom_maps_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.utils.config import config_from_graph, create_config

CODEBOOK_Z = np.array([[0.5, 0.5], [0.25, 1.0], [1.0, 0.0]])  # a 1 x 3 map of 2 inputs


def maps_model(count: int = 3, laterals: dict | None = None, **options):
    codebooks, grids = [CODEBOOK_X, CODEBOOK_Y, CODEBOOK_Z][:count], [(2, 2), (2, 3), (1, 3)][:count]
    matrices = laterals or {(0, 1): LATERAL, (0, 2): np.full((4, 3), 0.5), (1, 2): np.eye(6, 3)}
    matrices = {pair: values for pair, values in matrices.items() if max(pair) < count}
    labels = [np.arange(4) % 2, *([None] * (count - 1))]
    graph, origin = resom_maps_graph(codebooks, grids, matrices, labels, pair_kind=False, **options)
    return graph_model(graph, origin)


def _lateral_products(model) -> list:
    """The constant products by H (multipliers with a known digit count)."""
    return sorted(m for m in shapes(rule_model(model, 'resom').cost.multipliers) if m[3] != 0)


def test_two_maps_count_the_lateral_products_of_the_two_map_resom() -> None:
    assert _lateral_products(maps_model(2)) == _lateral_products(resom_model(output='label'))


def test_a_third_map_adds_its_pairs_and_a_pruned_pair_costs_nothing() -> None:
    two, three = rule_model(maps_model(2), 'resom'), rule_model(maps_model(3), 'resom')
    assert three.cost.multiplier_count > two.cost.multiplier_count
    assert three.cost.adder_bits > two.cost.adder_bits
    pruned = {(0, 1): LATERAL, (0, 2): np.zeros((4, 3)), (1, 2): np.zeros((6, 3))}
    assert _lateral_products(maps_model(3, pruned)) == _lateral_products(maps_model(2))
    assert '3 maps, 1 unrolled round(s)' in three.notes[0] and '13 divisions' in three.notes[0]


@pytest.mark.parametrize('source', ['all', 'bmu'])
def test_every_output_is_modelled(source: str) -> None:
    for output in ('label', 'index', 'winners', 'activities'):
        estimate = maps_model(3, source=source, output=output, combine='sum').estimate()
        (layer,) = [layer for layer in estimate.layers if layer.kind == 'ReSOMMaps']
        assert layer.modelled and layer.coarse and layer.resources['LUT'].low > 0, layer.notes


def _resource_row(reuse: int, strategy: str = 'Resource', source: str = 'all'):
    """Three maps of 16 units over 8 inputs (128 distance terms each, 48^2 = 2304 entries of L)."""
    rng = np.random.default_rng(9)
    codebooks = [rng.random((16, 8)) for _ in range(3)]
    matrices = {pair: rng.random((16, 16)) for pair in ((0, 1), (0, 2), (1, 2))}
    graph, origin = resom_maps_graph(codebooks, [(4, 4)] * 3, matrices, [np.arange(16) % 3, None, None], source=source)
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', reuse, None)
    config['HLSConfig']['LayerName']['resom'].update(Strategy=strategy)
    (found,) = [layer for layer in ModelGraph(config, graph, origin).estimate().layers if layer.name == 'resom']
    return found


def test_resource_resom_maps_multipliers_fall_as_one_over_the_reuse_factor() -> None:
    """Resource folds every product: 3 x 128 squarers, 2304 lateral products, 3 x 16 divisions' products
    and the activities' roots, each into ceil(terms / RF) lanes, so DSPs fall as 1 / RF (RF 16 divides
    every stage); the LUTs fall too (the divisions fold), down to the unfolded scans and tables.
    Latency keeps every product at every RF."""
    rows = {reuse: _resource_row(reuse) for reuse in (1, 2, 4, 16)}
    dsps = {reuse: row.resources['DSP'].high for reuse, row in rows.items()}
    assert dsps[1] > 3 * 128 + 2304
    for reuse in (2, 4, 16):
        assert dsps[reuse] == pytest.approx(dsps[1] / reuse, rel=0.02), reuse
        assert rows[reuse].resources['LUT'].high < rows[reuse // 2 if reuse < 16 else 4].resources['LUT'].high
    assert _resource_row(1, 'Latency').resources['DSP'] == _resource_row(16, 'Latency').resources['DSP']
    assert rows[16].interval.low >= 16 and any('Resource' in note for note in rows[16].notes)


def test_a_resom_maps_reuse_factor_beyond_its_folded_terms_is_lowered_with_a_warning() -> None:
    """source 'bmu' folds only the distances: 128 terms per map."""
    with pytest.warns(UserWarning, match=r"'resom'.*ReuseFactor 200 exceeds the 128 terms"):
        row = _resource_row(200, source='bmu')
    assert row.interval.low >= 128
