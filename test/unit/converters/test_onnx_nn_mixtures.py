"""The M-map ReSOM, the soft top-k router and the mixtures of experts through ONNX: `hls4ml.nn.onnx.export`
writes ReSOMMaps (its lists of inputs, codebooks and labels as tensors in a row), SoftTopKRouter,
SparseMoE, SparseMoEFFN and SoftMoE as custom ops of domain hls4ml.nn, and the ONNX frontend converts
them to the layers the direct PyTorch conversion gives (SoftMoE: the same composition of Dense, Softmax,
Einsum and EinsumDense layers): same kinds, attributes, types and weights, the emulator's outputs equal
bit for bit. Bad node shapes and settings are refused naming the node."""

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
from hls4ml.nn.torch_experts import SoftMoE, SparseMoE  # noqa: E402
from hls4ml.nn.torch_resom_maps import ReSOMMaps  # noqa: E402
from hls4ml.nn.torch_routers import SoftTopKRouter  # noqa: E402

CONFIG = {'Model': {'Precision': 'fixed<16,6>'}}
SHAPES = [(4,), (3,), (5,), (3, 4)]
NEW_OPS = ['ReSOMMaps', 'SoftTopKRouter', 'SparseMoE', 'SparseMoEFFN', 'SoftMoE']


class Mixtures(torch.nn.Module):
    """A ReSOM of three maps over (a, b, c) with a beta per map; over the tokens t (3, 4): a soft top-k
    router (l = 0.3, k_max = 3, gates), a SparseMoE of linear experts, one of FFN experts and a SoftMoE of
    two experts with two slots each."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        rng = np.random.default_rng(0)
        data = [rng.random((120, width)) for width in (4, 3, 5)]
        self.maps = ReSOMMaps([4, 3, 5], [(2, 2), (2, 3), (2, 2)], betas=[0.25, 0.5, 0.3], output='activities')
        self.maps.fit_maps(data, epochs=1, seed=1).fit_laterals(data)
        self.router = SoftTopKRouter(4, 4, k=2, l=0.3, k_max=3, p=4 / 3)
        self.moe = SparseMoE(4, 3, 4, k=2)
        self.ffn = SparseMoE(4, 3, 4, k=1, renormalize=False, hidden_features=5)
        self.soft = SoftMoE(4, 3, 2, slots_per_expert=2)

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.maps(a, b, c), self.router(t), self.moe(t), self.ffn(t), self.soft(t)


@pytest.fixture(scope='module')
def exported(tmp_path_factory) -> tuple[Mixtures, str]:
    module = Mixtures().eval()
    path = str(tmp_path_factory.mktemp('onnx') / 'mixtures.onnx')
    export(module, tuple(torch.rand(2, *shape) for shape in SHAPES), path, input_names=['a', 'b', 'c', 't'])
    return module, path


def _samples(count: int = 30) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [rng.random((count, *shape)) * 2 - 0.5 for shape in SHAPES]


def _custom_nodes(path: str) -> dict:
    return {node.op_type: node for node in onnx.load(path).graph.node if node.domain == DOMAIN}


def _attribute(node, name: str):
    value = onnx.helper.get_attribute_value(next(item for item in node.attribute if item.name == name))
    return onnx.numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else value


def test_export_writes_the_lists_and_settings_as_the_op_table_says(exported) -> None:
    nodes = _custom_nodes(exported[1])
    assert list(nodes) == NEW_OPS
    maps = nodes['ReSOMMaps']
    assert list(maps.input[:3]) == ['a', 'b', 'c'] and len(maps.input) == 3 + 3 + 1 + 3
    assert list(maps.input[3:6]) == [f'maps.soms.{index}.codebook' for index in range(3)]
    assert _attribute(maps, 'grids') == [2, 2, 2, 3, 2, 2]
    betas = _attribute(maps, 'betas')
    assert betas.dtype == np.float64 and betas.tolist() == [0.25, 0.5, 0.3]  # not rounded to float32
    router = nodes['SoftTopKRouter']
    assert _attribute(router, 'p') == 4 / 3 and _attribute(router, 'k_max') == 3
    assert _attribute(router, 'strength') == 0.3
    assert list(nodes['SparseMoEFFN'].input[2:]) == ['ffn.weight', 'ffn.bias', 'ffn.weight2', 'ffn.bias2']
    assert _attribute(nodes['SparseMoEFFN'], 'renormalize') == 0
    assert list(nodes['SoftMoE'].input) == ['t', 'soft.slots', 'soft.weight', 'soft.bias']


def test_onnx_conversion_equals_the_direct_pytorch_conversion(exported, tmp_path) -> None:
    module, path = exported
    from_onnx = hls4ml.converters.convert_from_onnx_model(
        path, output_dir=str(tmp_path / 'onnx'), backend='Vitis', hls_config=CONFIG
    )
    direct = hls4ml.converters.convert_from_pytorch_model(
        module, output_dir=str(tmp_path / 'torch'), backend='Vitis', hls_config={**CONFIG, 'InputShape': SHAPES}
    )
    mine, theirs = _layers(from_onnx), _layers(direct)
    assert [kind for kind, *_ in mine] == [kind for kind, *_ in theirs]
    assert {'ReSOMMaps', 'SoftTopKRouter', 'MoE', 'EinsumDense', 'Softmax'} <= {kind for kind, *_ in mine}
    assert mine == theirs
    samples = _samples()
    for ours, reference in zip(interpret(from_onnx, samples)[0], interpret(direct, samples)[0], strict=True):
        np.testing.assert_array_equal(ours.value, reference.value)


def _layers(hls_model) -> list[tuple[str, str, str, str]]:
    """Every layer as (kind, attributes, types, weights) text, without what names or places it; sorted,
    since the two frontends name (and so order) the layers differently."""
    described = []
    for layer in hls_model.graph.layers.values():
        settings = {key: _text(value) for key, value in layer.attributes.items() if key not in ('trace', 'name')}
        types = {key: str(value) for key, value in layer.types.items()}
        weights = {name: np.asarray(values).tobytes().hex() for name, values in layer.weights.items()}
        described.append((layer.kind, str(sorted(settings.items())), str(sorted(types.items())), str(weights)))
    return sorted(described)


def _text(value) -> str:
    """A setting as text; a number as a float, so an integral p = 2 reads the same as 2.0."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return repr(float(value)) if is_number else str(value)


def _edited(path: str, tmp_path, op_type: str, change) -> str:
    model = onnx.load(path)
    change(next(node for node in model.graph.node if node.domain == DOMAIN and node.op_type == op_type))
    edited = str(tmp_path / 'edited.onnx')
    onnx.save(model, edited)
    return edited


def _set_int(name: str, value: int):
    def change(node) -> None:
        next(attribute for attribute in node.attribute if attribute.name == name).i = value

    return change


def _drop_last_labels(node) -> None:
    del node.input[-1]


def _two_betas(node) -> None:
    attribute = next(attribute for attribute in node.attribute if attribute.name == 'betas')
    attribute.t.CopyFrom(onnx.numpy_helper.from_array(np.array([0.25, 0.5])))


def _two_grids(node) -> None:
    attribute = next(attribute for attribute in node.attribute if attribute.name == 'grids')
    del attribute.ints[4:]


def _float32_strength(node) -> None:
    attribute = next(attribute for attribute in node.attribute if attribute.name == 'strength')
    attribute.t.CopyFrom(onnx.numpy_helper.from_array(np.array(0.3, dtype=np.float32)))


@pytest.mark.parametrize(
    ('op_type', 'change', 'message'),
    [
        ('ReSOMMaps', _drop_last_labels, r"'/maps/ReSOMMaps'.*3 lists .* of M >= 2 tensors each.*the node has 9"),
        ('ReSOMMaps', _two_betas, r"'/maps/ReSOMMaps'.*betas must be 3 positive numbers"),
        ('ReSOMMaps', _two_grids, r"'/maps/ReSOMMaps'.*attribute grids holds 4 values, \(rows, cols\) of 3 maps"),
        ('ReSOMMaps', _set_int('iterations', 0), r"'/maps/ReSOMMaps'.*iterations"),
        ('SoftTopKRouter', _set_int('k_max', 1), r"'/router/SoftTopKRouter'.*k_max=1 must be between k=2"),
        ('SoftTopKRouter', _float32_strength, 'hls4ml.nn SoftTopKRouter: attribute strength must be a float64'),
        ('SparseMoE', _set_int('k', 5), r"'/moe/SparseMoE'.*k=5 over router logits"),
        ('SparseMoEFFN', _drop_last_labels, r"'/ffn/SparseMoEFFN'.*takes 6 inputs"),
    ],
)
def test_bad_nodes_are_refused_by_name(exported, tmp_path, op_type: str, change, message: str) -> None:
    path = _edited(exported[1], tmp_path, op_type, change)
    with pytest.raises(ConversionError, match=message):
        hls4ml.converters.convert_from_onnx_model(path, output_dir=str(tmp_path / 'prj'), backend='Vitis')


def test_an_argument_the_op_does_not_carry_is_refused_at_export(tmp_path, monkeypatch) -> None:
    """A layer function that gained a setting its op row lacks must not export without it."""
    from hls4ml.nn import torch_routers

    def with_extra(logits, k, strength, k_max, mask_on, renormalize, output, iterations=12, temperature=1.0):
        return torch.softmax(logits / temperature, dim=-1)

    monkeypatch.setattr(torch_routers, 'soft_topk_router', with_extra)

    class Extra(torch.nn.Module):
        def forward(self, logits: torch.Tensor) -> torch.Tensor:
            return torch_routers.soft_topk_router(logits, 2, 0.3, 4, 'logits', True, 'gates', temperature=2.0)

    with pytest.raises(ValueError, match='SoftTopKRouter has no attribute for temperature'):
        export(Extra(), torch.rand(2, 4), str(tmp_path / 'extra.onnx'))


def test_the_shape_rule_qonnx_is_given_follows_each_new_op(exported) -> None:
    """`output_shape` stands in for the ops during qonnx's clean-up: it must give the shapes torch gives."""
    from hls4ml.converters.onnx.custom_ops import output_shape

    module, path = exported
    model = onnx.load(path)
    weights = {item.name: list(item.dims) for item in model.graph.initializer}
    with torch.no_grad():
        results = module(*(torch.rand(2, *shape) for shape in SHAPES))
    for node, result in zip(_custom_nodes(path).values(), results, strict=True):
        settings = {item.name: _attribute(node, item.name) for item in node.attribute}
        settings = {name: value.decode() if isinstance(value, bytes) else value for name, value in settings.items()}
        first = [2, *SHAPES[0]] if node.op_type == 'ReSOMMaps' else [2, 3, 4]
        shapes = [first] + [weights.get(name, [2, 3, 4]) for name in node.input[1:]]
        assert output_shape(node.op_type, settings, shapes) == list(result.shape), node.op_type
