"""The rule of the conditional mixture of experts (hls4ml/estimate/kinds_experts.py), counted by hand
from nnet_moe.h: k banks of ceil(n_in n_out / RF) multipliers instead of E, the E weight sets stored
(a ROM under Resource), and the saving against the same experts always computed as E Dense layers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.backends.devices import family_of
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.model import RULES
from hls4ml.model.graph import ModelGraph
from hls4ml.utils.config import config_from_graph, create_config

EXPERTS, K, D = 8, 2, 16


def moe_model(reuse_factor: int = 1, strategy: str = 'latency', io_type: str = 'io_parallel') -> ModelGraph:
    rng = np.random.default_rng(0)
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (D,))
    logits = builder.dense(Origin('gate', 'Linear'), x, rng.normal(0, 1, (D, EXPERTS)), None)
    kernels, biases = rng.normal(0, 0.3, (EXPERTS, D, D)), rng.normal(0, 0.1, (EXPERTS, D))
    builder.output(builder.moe(Origin('moe', 'MoE'), x, logits, [(kernels, biases)], K, True), Origin('moe', 'out'))
    graph, origin = builder.finish()
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', reuse_factor, None)
    config['HLSConfig']['Model']['Strategy'] = strategy
    return ModelGraph(config, graph, origin)


def rule_model(model: ModelGraph, name: str = 'moe'):
    family, _ = family_of('xcvu13p-flga2577-2-e', 'amd')
    ctx = RuleContext(model.graph, family, 3.65, model.config['IOType'] == 'io_stream')
    return RULES[model.graph.layers[name].kind](model.graph.layers[name], ctx)


@pytest.mark.parametrize(('reuse_factor', 'strategy'), [(1, 'latency'), (4, 'latency'), (4, 'resource')])
def test_k_banks_of_folded_multipliers(reuse_factor: int, strategy: str) -> None:
    model = moe_model(reuse_factor, strategy)
    counted = rule_model(model)
    block = math.ceil(D * D / reuse_factor)
    expert_banks = [m for m in counted.cost.multipliers if m.count == K * block]
    assert len(expert_banks) == 1 and expert_banks[0].digits is None  # general: the weights change per token
    # the gates (k) and the combination (k * n_out) are the only other products
    assert counted.cost.multiplier_count == K * block + K + math.ceil(K * D / reuse_factor)
    assert f'{K * block} expert multipliers instead of {EXPERTS * block}' in counted.notes[0]
    assert counted.interval.low == reuse_factor


def test_resource_keeps_every_expert_in_one_rom() -> None:
    counted = rule_model(moe_model(4, 'resource'))
    (rom,) = [memory for memory in counted.cost.memories if memory.label == 'expert weights']
    weight_bits = moe_model(4, 'resource').graph.layers['moe'].types['weight'].width
    assert (rom.words, rom.width, rom.reads) == (EXPERTS * 4, D * D // 4 * weight_bits, K)


def test_estimate_shows_the_saving_against_always_computed_experts() -> None:
    """The DSPs of the MoE row against E Dense experts of the same folding (RF 4, Resource)."""
    moe_dsp = _row(moe_model(4, 'resource').estimate(), 'moe')['DSP']
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (D,))
    rng = np.random.default_rng(0)
    for expert in range(EXPERTS):
        y = builder.dense(Origin(f'expert{expert}', 'Linear'), x, rng.normal(0, 0.3, (D, D)), rng.normal(0, 0.1, D))
        builder.output(y, Origin(f'expert{expert}', 'out'))
    graph, origin = builder.finish()
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 4, None)
    config['HLSConfig']['Model']['Strategy'] = 'resource'
    dense_report = ModelGraph(config, graph, origin).estimate()
    dense_dsp = sum(_row(dense_report, f'expert{e}')['DSP'].high for e in range(EXPERTS))
    assert dense_dsp == EXPERTS * D * D // 4
    assert moe_dsp.high < dense_dsp / 2


def _row(report, name: str):
    (found,) = [layer for layer in report.layers if layer.name == name]
    return found.resources


def test_ffn_experts_two_banks_per_slot() -> None:
    """FFN experts 16 -> 32 -> 16: per slot a bank of 16 x 32 / RF and one of 32 x 16 / RF multipliers."""
    rng = np.random.default_rng(1)
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (D,))
    logits = builder.dense(Origin('gate', 'Linear'), x, rng.normal(0, 1, (D, EXPERTS)), None)
    first = (rng.normal(0, 0.3, (EXPERTS, D, 32)), rng.normal(0, 0.1, (EXPERTS, 32)))
    second = (rng.normal(0, 0.3, (EXPERTS, 32, D)), rng.normal(0, 0.1, (EXPERTS, D)))
    y = builder.moe(Origin('moe', 'MoE'), x, logits, [first, second], K, True)
    builder.output(y, Origin('moe', 'out'))
    graph, origin = builder.finish()
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 8, None)
    config['HLSConfig']['Model']['Strategy'] = 'resource'
    counted = rule_model(ModelGraph(config, graph, origin))
    banks = sorted(m.count for m in counted.cost.multipliers)
    assert banks == [K, K * D // 8, K * 16 * 32 // 8, K * 32 * D // 8]  # gates, combine, the two expert banks
    assert len([memory for memory in counted.cost.memories if memory.label == 'expert weights']) == 2
