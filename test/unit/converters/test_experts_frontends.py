"""The mixture-of-experts frontends without compiling: GraphBuilder.moe and .einsum_dense refuse what does
not fit with the operation named; SparseMoE (PyTorch, Keras) becomes a gate and one MoE layer with the
module's parameters, linear or FFN; SoftMoE becomes its softmax and einsum layers; the IR's shape rule
names the layer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation
from hls4ml.converters.pytorch import parse_pytorch_model
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.nn.torch_experts import SoftMoE, SparseMoE

D, OUT, EXPERTS = 4, 3, 5


def _builder_and_logits(shape=(D,)):
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), shape)
    logits = builder.dense(Origin('gate', 'Linear'), x, np.ones((D, EXPERTS)), None)
    return builder, x, logits


def test_builder_refuses_mismatched_experts() -> None:
    builder, x, logits = _builder_and_logits()
    good = (np.zeros((EXPERTS, D, OUT)), np.zeros((EXPERTS, OUT)))
    with pytest.raises(UnsupportedOperation, match="'moe'.*expert weights"):
        builder.moe(Origin('moe', 'MoE'), x, logits, [(np.zeros((EXPERTS, D + 1, OUT)), good[1])], 2, True)
    with pytest.raises(UnsupportedOperation, match='k=6'):
        builder.moe(Origin('moe', 'MoE'), x, logits, [good], EXPERTS + 1, True)
    with pytest.raises(UnsupportedOperation, match='router logits'):
        builder.moe(Origin('moe', 'MoE'), x, x, [good], 2, True)  # 4 logits for 5 experts
    with pytest.raises(UnsupportedOperation, match="'mix'"):
        builder.einsum_dense(Origin('mix', 'Einsum'), 'ab,bc->ac', x, np.zeros((D, 2)), np.zeros(2))


def test_shape_rule_names_the_layer() -> None:
    builder, x, logits = _builder_and_logits()
    experts = [(np.zeros((EXPERTS, D, OUT)), np.zeros((EXPERTS, OUT)))]
    builder.output(builder.moe(Origin('moe', 'MoE'), x, logits, experts, 2, True), Origin('moe', 'out'))
    graph, _ = builder.finish()
    layer = graph.layers['moe']
    layer.attributes['k'] = EXPERTS + 1
    with pytest.raises(ValueError, match="'moe'.*k=6 must be between 1 and the 5 experts"):
        LAYER_KINDS[Kind.MOE].output_shape(layer, [(D,), (EXPERTS,)])
    layer.attributes['k'] = 2
    with pytest.raises(ValueError, match='router logits of shape'):
        LAYER_KINDS[Kind.MOE].output_shape(layer, [(D,), (EXPERTS + 1,)])


@pytest.mark.parametrize('hidden', [None, 6])
def test_pytorch_sparse_moe_becomes_gate_and_moe(hidden) -> None:
    module = SparseMoE(D, OUT, EXPERTS, k=2, hidden_features=hidden).eval()
    graph, _ = parse_pytorch_model(module, (D,))
    (moe,) = [layer for layer in graph.layers.values() if layer.kind == Kind.MOE]
    assert moe.attributes['n_hidden'] == (hidden or 0) and moe.attributes['k'] == 2
    np.testing.assert_array_equal(moe.weights['weight'], module.weight.detach().numpy())
    if hidden:
        np.testing.assert_array_equal(moe.weights['bias2'], module.bias2.detach().numpy())
    assert graph.producer(moe.inputs[1]).kind == Kind.DENSE  # the gate Linear gives the logits


def test_pytorch_soft_moe_becomes_softmaxes_and_einsums() -> None:
    graph, _ = parse_pytorch_model(SoftMoE(D, OUT, num_experts=2, slots_per_expert=3).eval(), (6, D))
    kinds = [layer.kind for layer in graph.layers.values()]
    assert kinds.count(Kind.SOFTMAX) == 2 and kinds.count(Kind.EINSUM) == 2 and Kind.EINSUM_DENSE in kinds
    (experts,) = [layer for layer in graph.layers.values() if layer.kind == Kind.EINSUM_DENSE]
    assert experts.attributes['equation'] == 'esd,edo->eso' and experts.weights['weight'].shape == (2, D, OUT)


def test_soft_moe_needs_a_group_of_tokens() -> None:
    with pytest.raises(Exception, match='one group of tokens'):
        parse_pytorch_model(SoftMoE(D, OUT, 2, 1).eval(), (D,))


def test_float_modules_route_k_experts() -> None:
    """SparseMoE's float forward: an expert the token does not route to has no effect."""
    module = SparseMoE(D, OUT, EXPERTS, k=1).eval()
    x = torch.randn(8, D)
    with torch.no_grad():
        chosen = module.gate(x).argmax(dim=1)
        before = module(x)
        unused = [e for e in range(EXPERTS) if e not in set(chosen.tolist())]
        module.weight[unused] = 100.0
        np.testing.assert_array_equal(module(x).numpy(), before.numpy())
