"""The hls4ml.nn layers through ONNX: `hls4ml.nn.onnx.export` writes each as a custom op of domain hls4ml.nn
(settings as attributes, weights as initializers) and the ONNX frontend converts it to the IR layer that
converting the PyTorch module directly gives (same kinds, attributes, types; the emulator's outputs equal
bit for bit). Unknown ops of the domain, bad attributes and bad settings are refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')
onnx = pytest.importorskip('onnx')

import hls4ml  # noqa: E402
from hls4ml.converters.builder import ConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.onnx import export  # noqa: E402
from hls4ml.nn.onnx_ops import DOMAIN  # noqa: E402
from hls4ml.nn.torch_moe import ExpertChoiceRouter, SparseSoftTopK, TopKRouter  # noqa: E402
from hls4ml.nn.torch_resom import ReSOM  # noqa: E402
from hls4ml.nn.torch_som import SOM  # noqa: E402

CONFIG = {'Model': {'Precision': 'fixed<16,6>'}}


class Layers(torch.nn.Module):
    """Every exported layer once: a ReSOM over (a, b), a SOM (activities), soft top-k (p = 4/3, l = 0.3)
    over a, a top-2 router with capacity and Sinkhorn balancing and a soft expert-choice router (p = 4/3) over c
    (tokens, features)."""

    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(0)
        x, y = rng.random((200, 6)), rng.random((200, 5))
        self.resom = ReSOM(6, 5, (3, 3), (2, 3), source='bmu', combine='sum', output='label')
        self.resom.fit_maps(x, y, epochs=1, seed=1).fit_lateral(x, y)
        self.resom.label_units(labelled_x=(x[:50], (x[:50, 0] * 4).astype(int)))
        self.som = SOM(6, (2, 4), distance='manhattan', output='activities', beta=0.5)
        self.som.set_codebook(rng.random((8, 6)))
        self.soft = SparseSoftTopK(2, l=0.3, mode='mask', p=4 / 3, iterations=10)
        self.router = TopKRouter(4, 4, k=2, output_mode='weights', capacity=2, sinkhorn_iterations=2)
        self.experts = ExpertChoiceRouter(2, l=0.5, p=4 / 3)

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.resom(a, b), self.som(a), self.soft(a - 0.5), self.router(c), self.experts(c)


SHAPES = [(6,), (5,), (3, 4)]


@pytest.fixture(scope='module')
def exported(tmp_path_factory) -> tuple[Layers, str]:
    torch.manual_seed(0)
    module = Layers().eval()
    path = str(tmp_path_factory.mktemp('onnx') / 'layers.onnx')
    samples = tuple(torch.rand(2, *shape) for shape in SHAPES)
    export(module, samples, path, input_names=['a', 'b', 'c'])
    return module, path


def _samples(count: int = 40) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [rng.random((count, *shape)) for shape in SHAPES]


def test_export_writes_one_custom_op_per_layer(exported) -> None:
    _, path = exported
    model = onnx.load(path)
    custom = [
        (node.op_type, sorted(attribute.name for attribute in node.attribute))
        for node in model.graph.node
        if node.domain == DOMAIN
    ]
    assert [op for op, _ in custom] == ['ReSOM', 'SOM', 'SparseSoftTopK', 'TopKRouter', 'ExpertChoiceRouter']
    assert custom[1][1] == ['beta', 'distance', 'grid', 'output', 'topology']
    assert {'resom.lateral', 'som.codebook'} <= {initializer.name for initializer in model.graph.initializer}
    assert any(opset.domain == DOMAIN for opset in model.opset_import)


def test_onnx_conversion_equals_the_direct_pytorch_conversion(exported, tmp_path) -> None:
    module, path = exported
    from_onnx = hls4ml.converters.convert_from_onnx_model(
        path, output_dir=str(tmp_path / 'onnx'), backend='Vitis', hls_config=CONFIG
    )
    direct = hls4ml.converters.convert_from_pytorch_model(
        module, output_dir=str(tmp_path / 'torch'), backend='Vitis', hls_config={**CONFIG, 'InputShape': SHAPES}
    )
    mine, theirs = _nn_layers(from_onnx), _nn_layers(direct)
    assert sorted(mine) == sorted(theirs) == ['ExpertChoiceRouter', 'ReSOM', 'Router', 'SOM', 'SoftTopK']
    for kind, layer in mine.items():
        other = theirs[kind]
        assert _described(layer.types) == _described(other.types), kind
        assert _described(layer.attributes) == _described(other.attributes), kind
        for name, weights in layer.weights.items():
            np.testing.assert_array_equal(weights, other.weights[name])
    for mine, theirs in zip(interpret(from_onnx, _samples())[0], interpret(direct, _samples())[0], strict=True):
        np.testing.assert_array_equal(mine.value, theirs.value)


def _nn_layers(hls_model) -> dict:
    kinds = ('SOM', 'ReSOM', 'SoftTopK', 'Router', 'ExpertChoiceRouter')
    return {layer.kind: layer for layer in hls_model.graph.layers.values() if layer.kind in kinds}


def _described(values: dict) -> dict[str, str]:
    """Types and settings as text, without what names or places the layer (trace, the module's name)."""
    return {key: str(value) for key, value in values.items() if key not in ('trace', 'name')}


def _edited(path: str, tmp_path, change) -> str:
    model = onnx.load(path)
    node = next(node for node in model.graph.node if node.domain == DOMAIN and node.op_type == 'SOM')
    change(node)
    edited = str(tmp_path / 'edited.onnx')
    onnx.save(model, edited)
    return edited


def _rename(node) -> None:
    node.op_type = 'Kohonen'


def _drop_beta(node) -> None:
    node.attribute.remove(next(attribute for attribute in node.attribute if attribute.name == 'beta'))


def _bad_distance(node) -> None:
    next(attribute for attribute in node.attribute if attribute.name == 'distance').s = b'hamming'


@pytest.mark.parametrize(
    ('change', 'message'),
    [
        (_rename, r"'/som/SOM' \(Kohonen in domain 'hls4ml.nn'"),
        (_drop_beta, 'hls4ml.nn SOM: missing attribute.s. beta'),
        (_bad_distance, "unsupported distance 'hamming'"),
    ],
)
def test_bad_custom_ops_are_refused_by_name(exported, tmp_path, change, message: str) -> None:
    path = _edited(exported[1], tmp_path, change)
    with pytest.raises(ConversionError, match=message):
        hls4ml.converters.convert_from_onnx_model(path, output_dir=str(tmp_path / 'prj'), backend='Vitis')
