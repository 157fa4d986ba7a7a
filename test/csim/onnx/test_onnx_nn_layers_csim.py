"""The hls4ml.nn layers carried through ONNX (hls4ml.nn.onnx.export, custom ops of domain hls4ml.nn) compile
with g++: predict() of the ONNX conversion equals, bit for bit, the reference interpreter of the direct
PyTorch conversion of the same module, and its labels (SOM, ReSOM) or values (ReSOMMaps, the routers and
mixtures of experts) match the float module's within what the precision explains."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('onnx')

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.onnx import export  # noqa: E402
from hls4ml.nn.torch_experts import SoftMoE, SparseMoE  # noqa: E402
from hls4ml.nn.torch_resom import ReSOM  # noqa: E402
from hls4ml.nn.torch_resom_maps import ReSOMMaps  # noqa: E402
from hls4ml.nn.torch_routers import SoftTopKRouter  # noqa: E402
from hls4ml.nn.torch_som import SOM  # noqa: E402

pytestmark = pytest.mark.csim
CONFIG = {'Model': {'Precision': 'fixed<16,6>'}}
TOLERANCE = 0.02  # fixed<16,6> keeps 10 fraction bits; the softmax tables and a few roundings add up to this


class Maps(torch.nn.Module):
    """A ReSOM (labels) and a SOM (index) over the same x."""

    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(2)
        x, y = rng.random((300, 6)), rng.random((300, 4))
        self.resom = ReSOM(6, 4, (3, 3), (3, 2))
        self.resom.fit_maps(x, y, epochs=2, seed=2).fit_lateral(x, y)
        self.resom.label_units(labelled_x=(x[:80], (x[:80, :3].sum(axis=1) * 2).astype(int)))
        self.som = SOM(6, (4, 4), output='index').set_codebook(rng.random((16, 6)))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.resom(x, y), self.som(x)


def test_onnx_carried_layers_predict_as_the_direct_conversion(tmp_path) -> None:
    module = Maps().eval()
    path = str(tmp_path / 'maps.onnx')
    export(module, (torch.rand(2, 6), torch.rand(2, 4)), path, input_names=['x', 'y'])
    from_onnx = hls4ml.converters.convert_from_onnx_model(
        path, output_dir=str(tmp_path / 'onnx'), backend='Vitis', hls_config=CONFIG
    )
    direct = hls4ml.converters.convert_from_pytorch_model(
        module, output_dir=str(tmp_path / 'torch'), backend='Vitis', hls_config={**CONFIG, 'InputShape': [(6,), (4,)]}
    )
    rng = np.random.default_rng(9)
    samples = [rng.random((200, 6)), rng.random((200, 4))]
    from_onnx.compile()
    predicted = [np.asarray(values).reshape(200, -1) for values in from_onnx.predict(samples)]
    expected = [values.value for values in interpret(direct, samples)[0]]
    for mine, theirs in zip(predicted, expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    with torch.no_grad():
        labels = module(*(torch.tensor(values, dtype=torch.float32) for values in samples))[0].numpy()
    assert (predicted[0] == labels).mean() >= 0.95


class Mixtures(torch.nn.Module):
    """A ReSOM of three maps (winners) over (a, b, c); over the tokens t (3, 4): a soft top-k router, a
    SparseMoE of FFN experts and a SoftMoE."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        rng = np.random.default_rng(1)
        data = [rng.random((150, width)) for width in (4, 3, 5)]
        self.maps = ReSOMMaps([4, 3, 5], [(2, 3), (2, 2), (2, 2)], betas=0.25, output='winners')
        self.maps.fit_maps(data, epochs=2, seed=1).fit_laterals(data)
        self.router = SoftTopKRouter(4, 4, k=2, l=0.25)
        self.moe = SparseMoE(4, 3, 4, k=2, hidden_features=6)
        self.soft = SoftMoE(4, 3, 2, slots_per_expert=2)

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.maps(a, b, c), self.router(t), self.moe(t), self.soft(t)


def test_onnx_carried_mixtures_predict_as_the_direct_conversion(tmp_path) -> None:
    module, shapes = Mixtures().eval(), [(4,), (3,), (5,), (3, 4)]
    path = str(tmp_path / 'mixtures.onnx')
    export(module, tuple(torch.rand(2, *shape) for shape in shapes), path, input_names=['a', 'b', 'c', 't'])
    from_onnx = hls4ml.converters.convert_from_onnx_model(
        path, output_dir=str(tmp_path / 'onnx'), backend='Vitis', hls_config=CONFIG
    )
    direct = hls4ml.converters.convert_from_pytorch_model(
        module, output_dir=str(tmp_path / 'torch'), backend='Vitis', hls_config={**CONFIG, 'InputShape': shapes}
    )
    rng = np.random.default_rng(4)
    samples = [rng.random((100, *shape)) for shape in shapes]
    from_onnx.compile()
    predicted = [np.asarray(values).reshape(100, -1) for values in from_onnx.predict(samples)]
    expected = [values.value.reshape(100, -1) for values in interpret(direct, samples)[0]]
    for mine, theirs in zip(predicted, expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    with torch.no_grad():
        floats = [values.numpy() for values in module(*(torch.tensor(v).float() for v in samples))]
    assert (predicted[0] == floats[0]).mean() >= 0.95  # the winning unit of each map
    for mine, reference in zip(predicted[1:], floats[1:], strict=True):
        # a (tokens, features) result comes out in PyTorch's channels-first order: (features, tokens)
        tokens_first = mine.reshape(100, reference.shape[2], reference.shape[1]).transpose(0, 2, 1)
        close = np.abs(tokens_first - reference).max(axis=-1) <= TOLERANCE
        assert close.mean() >= 0.98  # a token whose router logits nearly tie may route to other experts
