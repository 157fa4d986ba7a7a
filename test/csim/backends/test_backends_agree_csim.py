"""Vitis, oneAPI and Catapult: the same model and precision config give bit-identical predict() on
every layer kind. The three share the lowering and the kernel library; Vitis computes with ap_fixed,
the other two with ac_fixed (docs/backends.md lists where the two families differ and how the
lowering keeps the results equal)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from csim.keras.test_keras_cnn_csim import CASES as SPATIAL_CASES  # noqa: E402
from csim.keras.test_keras_csim import LAYER_CASES, _model, _randomise_batchnorm  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
L = keras.layers


def supported(backend: str, io_type: str) -> bool:
    return io_type not in dict(hls4ml.backends.get_backend(backend).unsupported_io)


def predictions(model: keras.Model, x, tmp_path, io_type: str, **layer_cfg) -> dict[str, np.ndarray]:
    results = {}
    for backend in BACKENDS:
        if not supported(backend, io_type):
            continue
        config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
        for name, settings in layer_cfg.items():
            config['LayerName'][name].update(settings)
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / backend), backend=backend, io_type=io_type
        )
        results[backend] = hls_model.predict(x)
        references, _ = interpret(hls_model, x)  # the reference in the backend's own family
        outputs = results[backend] if isinstance(results[backend], list) else [results[backend]]
        for output, reference in zip(outputs, references, strict=True):
            np.testing.assert_array_equal(output, reference.to_double().astype(output.dtype))
    return results


def assert_all_equal(results: dict[str, np.ndarray]) -> None:
    assert 'Vitis' in results and len(results) >= 2
    for backend, result in results.items():
        np.testing.assert_array_equal(result, results['Vitis'], err_msg=f'{backend} differs from Vitis')


@pytest.mark.parametrize('case', sorted(LAYER_CASES))
def test_vector_layers_agree(case: str, tmp_path) -> None:
    layers, _ = LAYER_CASES[case]
    model = _model(*[layer.__class__.from_config(layer.get_config()) for layer in layers])
    _randomise_batchnorm(model)
    x = np.random.default_rng(11).normal(0, 1.5, (200, 8)).astype(np.float32)
    assert_all_equal(predictions(model, x, tmp_path, 'io_parallel'))


@pytest.mark.parametrize('implementation', ['latency', 'argmax'])
def test_softmax_implementations_agree(implementation: str, tmp_path) -> None:
    model = _model(L.Dense(5, name='logits'), L.Softmax(name='probabilities'))
    x = np.random.default_rng(12).normal(0, 1.0, (200, 8)).astype(np.float32)
    assert_all_equal(predictions(model, x, tmp_path, 'io_parallel', probabilities={'Implementation': implementation}))


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('case', sorted(SPATIAL_CASES))
def test_spatial_layers_agree(case: str, io_type: str, tmp_path) -> None:
    model = SPATIAL_CASES[case]()
    x = np.random.default_rng(3).uniform(-2, 2, (30, *model.inputs[0].shape[1:])).astype(np.float32)
    assert_all_equal(predictions(model, x, tmp_path, io_type))


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_merges_and_a_resource_dense_agree(io_type: str, tmp_path) -> None:
    keras.utils.set_random_seed(8)
    first, second = keras.Input((6,), name='first'), keras.Input((6,), name='second')
    hidden = L.Dense(6, activation='relu', name='hidden')(first)
    merged = [op()([hidden, second]) for op in (L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum)]
    joined = L.Concatenate()([L.Concatenate()([merged[0], merged[1]]), L.Add()([merged[2], merged[3]])])
    out = L.Dense(4, name='out')(L.Concatenate()([joined, L.Subtract()([merged[4], merged[5]])]))
    model = keras.Model([first, second], [out, L.Dot(axes=1)([hidden, second])])
    rng = np.random.default_rng(4)
    x = [rng.uniform(-2, 2, (40, 6)).astype(np.float32) for _ in range(2)]
    results = predictions(model, x, tmp_path, io_type, hidden={'Strategy': 'Resource', 'ReuseFactor': 3})
    for index in range(2):
        assert_all_equal({backend: outputs[index] for backend, outputs in results.items()})
