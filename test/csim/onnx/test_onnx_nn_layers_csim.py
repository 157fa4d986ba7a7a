"""The hls4ml.nn layers carried through ONNX (hls4ml.nn.onnx.export, custom ops of domain hls4ml.nn) compile
with g++: predict() of the ONNX conversion equals, bit for bit, the reference interpreter of the direct
PyTorch conversion of the same module, and its labels match the float module's."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('onnx')

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.onnx import export  # noqa: E402
from hls4ml.nn.torch_resom import ReSOM  # noqa: E402
from hls4ml.nn.torch_som import SOM  # noqa: E402

pytestmark = pytest.mark.csim
CONFIG = {'Model': {'Precision': 'fixed<16,6>'}}


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
