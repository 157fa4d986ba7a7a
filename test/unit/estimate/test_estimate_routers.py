"""The estimator rule of the sparse-soft-top-k router (kinds_routers.py): io_parallel unrolls one router
per token, io_stream one; the overflow count needs no gate products; the notes name the search."""

from __future__ import annotations

import numpy as np

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph

TOKENS, D, EXPERTS = 3, 4, 8


def _rows(tmp_path, io_type: str) -> dict:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, D))
    logits = builder.dense(Origin('gate', 'Linear'), x, np.random.default_rng(1).normal(0, 1, (D, EXPERTS)), None)
    for output in ('gates', 'overflow'):
        settings = {'k': 2, 'l': 0.5, 'p': 2, 'iterations': 12, 'k_max': 3, 'mask_on': 'logits'}
        routed = builder.soft_router(
            Origin(output, 'SoftTopKRouter'), logits, {**settings, 'renormalize': True, 'output': output}
        )
        builder.output(routed, Origin(output, 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / io_type), 'myproject', 'Vitis', io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return {row.name: row for row in ModelGraph(config, graph, origin).estimate().layers}


def test_soft_router_estimate(tmp_path) -> None:
    parallel, stream = _rows(tmp_path, 'io_parallel'), _rows(tmp_path, 'io_stream')
    gates, overflow = parallel['gates'], parallel['overflow']
    assert gates.kind == 'SoftTopKRouter' and gates.coarse
    assert gates.resources['DSP'].low > overflow.resources['DSP'].low > 0  # the overflow count: the polish only
    assert gates.resources['DSP'].low == TOKENS * stream['gates'].resources['DSP'].low
    assert gates.resources['LUT'].low > 2 * stream['gates'].resources['LUT'].low
    assert any('12 bisection steps' in note for note in gates.notes)


def _by_p(tmp_path, p: float) -> dict:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, D))
    logits = builder.dense(Origin('gate', 'Linear'), x, np.random.default_rng(1).normal(0, 1, (D, EXPERTS)), None)
    settings = {'k': 2, 'l': 0.5, 'p': p, 'iterations': 12, 'k_max': 3, 'mask_on': 'logits'}
    settings |= {'renormalize': True, 'output': 'gates'}
    builder.output(builder.soft_router(Origin('router', 'SoftTopKRouter'), logits, settings), Origin('r', 'out'))
    choice = builder.expert_choice(Origin('choice', 'ExpertChoiceRouter'), logits, 2, 0.25, 12, p)
    builder.output(choice, Origin('choice', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / str(p)), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return {row.name: row for row in ModelGraph(config, graph, origin).estimate().layers}


def test_cubic_soft_routers_estimate(tmp_path) -> None:
    """p = 4/3: the cubic kernel's (iterations + 1) n squares and cubes per mask replace the polish's one
    product, so both soft routers take more DSPs than with p = 2, and no reciprocal table."""
    linear, cubic = _by_p(tmp_path, 2.0), _by_p(tmp_path, 4 / 3)
    for name in ('router', 'choice'):
        assert cubic[name].resources['DSP'].low > linear[name].resources['DSP'].low, name
        assert cubic[name].latency.low >= linear[name].latency.low, name
        assert cubic[name].resources['BRAM_18K'].low <= linear[name].resources['BRAM_18K'].low, name
    assert any('cubic ramps (p = 4/3)' in note for note in cubic['router'].notes)
