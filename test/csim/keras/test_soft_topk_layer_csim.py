"""hls4ml.nn.keras_moe.SparseSoftTopK with the reference code's default p = 4/3 and an l that is not a
power of two (0.3), next to p = 2 with the same l in both modes: converted, compiled (Vitis, both IO
types), predict() equal to the interpreter bit for bit and within the documented bound of the layer's
own call (docs/topk.md)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.model.reference.soft_topk_bounds import layer_error_bound  # noqa: E402
from hls4ml.nn.keras_moe import SparseSoftTopK  # noqa: E402

pytestmark = pytest.mark.csim
N = 8
LAYERS = {  # name: settings
    'cubic': {'k': 2, 'l': 0.3, 'p': 4 / 3, 'iterations': 14},
    'linear': {'k': 3, 'l': 0.3},
    'magnitude': {'k': 2, 'l': 0.3, 'mode': 'magnitude'},
}


def _model() -> keras.Model:
    inputs = keras.Input((N,))
    return keras.Model(inputs, [SparseSoftTopK(name=name, **settings)(inputs) for name, settings in LAYERS.items()])


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_soft_topk_layers_p_four_thirds_and_any_l(tmp_path, io_type: str) -> None:
    keras_model = _model()
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', default_precision='fixed<16,6>')
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    assert model.graph.layers['cubic'].attributes['p'] == pytest.approx(4 / 3)
    x = np.round(np.random.default_rng(8).normal(0, 1, (60, N)) * 1024) / 1024  # exact in fixed<16,6>
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    expected = [np.asarray(tensor, dtype=np.float64) for tensor in keras_model(x.astype(np.float32))]
    for name, output, reference, framework in zip(LAYERS, predicted, references, expected, strict=True):
        np.testing.assert_array_equal(output, reference.to_double(), err_msg=name)
        layer = model.graph.layers[name]
        bound = layer_error_bound(layer, model.graph.input_type(layer)) + 1e-4  # + the layer's float32
        assert np.abs(output - framework).max() <= bound, name


def test_settings_survive_the_layer_config() -> None:
    layer = SparseSoftTopK(k=2, l=0.3, p=4 / 3, iterations=14, name='cubic')
    again = SparseSoftTopK.from_config(layer.get_config())
    assert (again.k, again.l, again.p, again.mode, again.iterations) == (2, 0.3, 4 / 3, 'mask', 14)
    with pytest.raises(ValueError, match="p=1.3333333333333333 with mode 'magnitude'"):
        SparseSoftTopK(k=2, p=4 / 3, mode='magnitude')
