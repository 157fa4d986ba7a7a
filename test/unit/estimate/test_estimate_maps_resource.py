"""The Resource strategy of SOM and ReSOM in the estimator (kinds_maps.folded_distance_stage,
folded_lateral_stage, fold_multiplexers): folded multipliers ceil(N D / RF), codebooks in block RAM,
the paper-sized ReSOM (two 10x10 maps over 784 and 507 inputs) under a VU13P's DSPs, and the config
checks of the reuse factor and the strategy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.estimate.kinds_maps import fold_multiplexers
from hls4ml.model.graph import ModelGraph
from hls4ml.model.resom_graphs import resom_graph
from hls4ml.model.som_graphs import som_graph
from hls4ml.utils.config import config_from_graph, create_config

PART = 'xcvu13p-flga2577-2-e'  # 12,288 DSPs
VU13P_DSPS = 12_288
PAPER_REUSE = 100  # the reuse factor docs/resom.md documents for the paper-sized ReSOM


def _model(graph, origin, name: str, strategy: str, reuse: int, narrow: dict[str, str] | None = None) -> ModelGraph:
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type='io_parallel', part=PART)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', reuse, None)
    config['HLSConfig']['LayerName'][name].update(Strategy=strategy)
    for input_name, precision in (narrow or {}).items():
        config['HLSConfig']['LayerName'][input_name]['Precision'] = precision
    return ModelGraph(config, graph, origin)


def _row(model: ModelGraph, name: str):
    (found,) = [layer for layer in model.estimate().layers if layer.name == name]
    return found


def test_fold_multiplexers_count_the_walk_by_hand() -> None:
    """4 units x 3 inputs. Block 3 or 6 (whole rows): no multiplexer. Block 2: lane 0 reads inputs
    0, 2, 1 and lane 1 reads 1, 0, 2 (one 3:1 LUT each); units 1 and 3 start a run at lane 1 in one
    step and lane 0 in the next (one 2:1 each)."""
    terms = np.arange(12)
    assert fold_multiplexers(terms // 3, terms % 3, 3) == (0, 0)
    assert fold_multiplexers(terms // 3, terms % 3, 6) == (0, 0)
    assert fold_multiplexers(terms // 3, terms % 3, 2) == (2, 2)


def test_som_resource_multipliers_fall_as_one_over_the_reuse_factor() -> None:
    """A 4x4 SOM over 8 inputs (128 terms, 17-bit differences: one DSP each): ceil(128 / RF) squarers
    and a codebook ROM of RF words; Latency keeps all 128 at every RF."""
    rng = np.random.default_rng(3)
    graph, origin = som_graph(rng.random((16, 8)), (4, 4), 'squared_euclidean', 'index')
    latency = _row(_model(graph, origin, 'som', 'Latency', 8), 'som').resources['DSP']
    for reuse in (1, 2, 5, 8, 16, 128):
        folded = _row(_model(graph, origin, 'som', 'Resource', reuse), 'som')
        assert folded.resources['DSP'].high == math.ceil(128 / reuse), reuse
        assert folded.interval.low >= reuse  # not pipelined as a whole: the fold's RF steps and the rest
    assert latency.high == 128


def test_paper_sized_resom_fits_a_vu13p_with_the_documented_reuse_factor() -> None:
    """Two 10x10 maps over 784 (MNIST-like) and 507 (MFCC-like) inputs of 8-bit values: Latency needs
    more DSPs than the VU13P has; Resource at RF 100 fits its DSPs, LUTs and block RAMs."""
    rng = np.random.default_rng(0)
    codebook_x, codebook_y, lateral = rng.random((100, 784)), rng.random((100, 507)), rng.random((100, 100))
    graph, origin = resom_graph(codebook_x, (10, 10), codebook_y, (10, 10), lateral, labels_x=np.arange(100) % 10)
    narrow = {'input_x': 'ufixed<8,0>', 'input_y': 'ufixed<8,0>'}
    latency = _model(graph, origin, 'resom', 'Latency', 1, narrow).estimate()
    assert latency.total.resources['DSP'].high > VU13P_DSPS
    estimate = _model(graph, origin, 'resom', 'Resource', PAPER_REUSE, narrow).estimate()
    assert estimate.available is not None
    for resource in ('DSP', 'LUT', 'BRAM_18K'):
        assert estimate.total.resources[resource].high < estimate.available[resource], resource
    assert estimate.total.resources['DSP'].high < VU13P_DSPS


def test_a_reuse_factor_beyond_the_folded_terms_is_lowered_with_a_warning() -> None:
    rng = np.random.default_rng(4)
    graph, origin = som_graph(rng.random((6, 5)), (2, 3), 'manhattan', 'index')
    with pytest.warns(UserWarning, match=r"'som'.*ReuseFactor 64 exceeds the 30 terms"):
        model = _model(graph, origin, 'som', 'Resource', 64)
    assert model.graph.layers['som'].attributes['reuse_factor'] == 30


def test_an_unknown_strategy_of_a_resom_is_refused_by_name() -> None:
    rng = np.random.default_rng(5)
    graph, origin = resom_graph(
        rng.random((4, 3)), (2, 2), rng.random((4, 2)), (2, 2), rng.random((4, 4)), output='index'
    )
    with pytest.raises(ValueError, match=r"\['resom'\]\['Strategy'\]: 'folded' is not one of latency, resource"):
        _model(graph, origin, 'resom', 'Folded', 2)


@pytest.mark.parametrize('reuse', [0, 2.5])
def test_a_reuse_factor_that_is_not_a_positive_integer_is_refused_by_name(reuse) -> None:
    rng = np.random.default_rng(6)
    graph, origin = som_graph(rng.random((6, 5)), (2, 3), 'chebyshev', 'index')
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type='io_parallel', part=PART)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    config['HLSConfig']['LayerName']['som'].update(Strategy='Resource', ReuseFactor=reuse)
    with pytest.raises(ValueError, match=r"\['som'\]\['ReuseFactor'\] must be a positive integer"):
        ModelGraph(config, graph, origin)


def test_resource_resom_folds_its_divisions() -> None:
    """Two 4x4 maps over 8 inputs, source 'bmu' (no lateral products): under Resource the 32 exact
    divisions fold to ceil(16 / RF) dividers per map, so LUTs fall with the reuse factor, while
    Latency's stay; the note names the folded divisions."""
    rng = np.random.default_rng(7)
    graph, origin = resom_graph(
        rng.random((16, 8)), (4, 4), rng.random((16, 8)), (4, 4), rng.random((16, 16)), source='bmu', output='index'
    )
    luts = {reuse: _row(_model(graph, origin, 'resom', 'Resource', reuse), 'resom') for reuse in (1, 4, 16)}
    assert luts[1].resources['LUT'].high > 2 * luts[4].resources['LUT'].high > 2 * luts[16].resources['LUT'].high
    latency = [_row(_model(graph, origin, 'resom', 'Latency', reuse), 'resom') for reuse in (1, 16)]
    assert latency[0].resources['LUT'] == latency[1].resources['LUT']
    assert any('divisions folded by 16' in note for note in luts[16].notes)
