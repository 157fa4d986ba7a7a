"""Soft expert choice (the sparse soft top-k over each expert's column of tokens, seed-layers.md B.5.5
with B.2's mask): the float64 definition's properties and its hard limit (C.5's vectors), and the
fixed-point twin through the interpreter against it."""

from __future__ import annotations

import numpy as np

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.router import expert_choice_exact
from hls4ml.model.reference.soft_router import soft_expert_choice_exact

GROUP = np.array([[1, 0, -1], [0.5, 0.5, 0], [2, -1, 0], [0, 1, 1], [-1, 0, 2], [0, 0, 0]])  # C.5, C = 2


def test_hard_limit_and_properties() -> None:
    """Where every expert's C-th and (C+1)-th probabilities are at least l apart the soft choice is the
    hard one (C.5: expert 0 takes tokens 2 and 0, ...); the mask of every column sums to C."""
    probabilities = np.exp(GROUP) / np.exp(GROUP).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(soft_expert_choice_exact(GROUP, 2, 0.01), expert_choice_exact(GROUP, 2), atol=1e-12)
    gates = soft_expert_choice_exact(GROUP, 2, 0.5)
    np.testing.assert_allclose((gates / probabilities).sum(axis=0), 2, atol=1e-12)  # the masks sum to C
    assert (gates <= probabilities + 1e-15).all() and ((gates > 0).sum(axis=0) >= 2).all()


def test_fixed_point_against_the_definition(tmp_path) -> None:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (6, 3))
    builder.output(builder.expert_choice(Origin('router', 'ExpertChoiceRouter'), x, 2, 0.125, 12), Origin('r', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>'}}
    logits = np.round(np.random.default_rng(0).normal(0, 1, (100, 6, 3)) * 64) / 64  # exact in fixed<16,6>
    (gates,), _ = interpret(  # the output comes channels first: (experts, tokens)
        ModelGraph(config, graph, origin), logits
    )
    # the softmax's tables (2^-8) scaled through the mask, plus the mask's own bound and the output LSB
    np.testing.assert_allclose(
        gates.to_double().reshape(-1, 3, 6).swapaxes(1, 2), soft_expert_choice_exact(logits, 2, 0.125), atol=2.0**-6
    )
