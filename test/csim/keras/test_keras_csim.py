"""Keras 3 models through the whole path: convert -> write -> g++ -> predict(), per layer kind and strategy.

Every model is checked twice: bit for bit against the reference interpreter (the numpy twin of
the kernels) and within a tolerance of Keras' float output that follows from the precision.
"""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
N_IN = 8


def _model(*layers: keras.layers.Layer, n_in: int = N_IN, seed: int = 3) -> keras.Model:
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((n_in,), name='features'), keras.layers.Dense(6, name='dense_in'), *layers])
    model.build((None, n_in))
    return model


def _inputs(n: int = 400, n_in: int = N_IN, scale: float = 1.5) -> np.ndarray:
    return np.random.default_rng(11).normal(0, scale, (n, n_in)).astype(np.float32)


def convert(model: keras.Model, tmp_path, granularity: str = 'name', precision: str = 'ap_fixed<16,6>', **layer_cfg):
    config = hls4ml.utils.config_from_keras_model(model, granularity=granularity, default_precision=precision)
    for name, settings in layer_cfg.items():
        config['LayerName'][name].update(settings)
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )


def check(hls_model, model: keras.Model, x: np.ndarray, atol: float) -> np.ndarray:
    predicted = hls_model.predict(x)
    (expected,), _ = interpret(hls_model, x)
    np.testing.assert_array_equal(predicted, expected.to_double().astype(predicted.dtype))
    np.testing.assert_allclose(predicted, model.predict(x, verbose=0), atol=atol)
    return predicted


LAYER_CASES = {
    'dense_linear': ([keras.layers.Dense(4)], 0.02),
    'dense_relu': ([keras.layers.Dense(4, activation='relu')], 0.02),
    'sigmoid': ([keras.layers.Activation('sigmoid')], 0.02),
    'tanh': ([keras.layers.Activation('tanh')], 0.02),
    'softplus': ([keras.layers.Activation('softplus')], 0.03),
    'softsign': ([keras.layers.Activation('softsign')], 0.04),  # table step 1/32 at slope 1
    'elu': ([keras.layers.ELU(alpha=0.7)], 0.02),
    'elu_by_name': ([keras.layers.Dense(4, activation='elu')], 0.02),
    'selu': ([keras.layers.Activation('selu')], 0.03),
    'leaky_relu': ([keras.layers.LeakyReLU(negative_slope=0.1)], 0.02),
    'thresholded_relu': ([keras.layers.ReLU(threshold=0.3)], 0.02),
    'prelu': ([keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25))], 0.02),
    'hard_sigmoid': ([keras.layers.Activation('hard_sigmoid')], 0.02),
    'linear_activation': ([keras.layers.Activation('linear')], 0.02),
    'dropout': ([keras.layers.Dropout(0.5), keras.layers.Dense(3)], 0.02),
    'softmax_stable': ([keras.layers.Softmax()], 0.02),
    'batchnorm': ([keras.layers.Activation('relu'), keras.layers.BatchNormalization()], 0.03),
    'batchnorm_fused': ([keras.layers.BatchNormalization(), keras.layers.Dense(3)], 0.03),
}


def _randomise_batchnorm(model: keras.Model) -> None:
    rng = np.random.default_rng(5)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            n = layer.gamma.shape[0]
            layer.set_weights(
                [rng.uniform(0.5, 1.5, n), rng.normal(0, 0.3, n), rng.normal(0, 0.3, n), rng.uniform(0.5, 2, n)]
            )


@pytest.mark.parametrize('case', sorted(LAYER_CASES))
def test_layer_is_bit_exact_and_close_to_keras(case: str, tmp_path) -> None:
    layers, atol = LAYER_CASES[case]
    model = _model(*[layer.__class__.from_config(layer.get_config()) for layer in layers])
    _randomise_batchnorm(model)
    hls_model = convert(model, tmp_path)
    check(hls_model, model, _inputs(), atol)
    if case == 'batchnorm_fused':
        assert 'BatchNormalization' not in [layer.kind for layer in hls_model.get_layers()]


@pytest.mark.parametrize('implementation', ['stable', 'latency', 'argmax'])
def test_softmax_implementations(implementation: str, tmp_path) -> None:
    model = _model(keras.layers.Softmax(name='probabilities'))
    hls_model = convert(model, tmp_path, probabilities={'Implementation': implementation})
    x = _inputs(scale=0.8)
    if implementation == 'argmax':
        predicted = hls_model.predict(x)
        np.testing.assert_array_equal(predicted.argmax(axis=1), model.predict(x, verbose=0).argmax(axis=1))
        assert set(np.unique(predicted)) <= {0.0, 1.0}
    else:
        check(hls_model, model, x, atol=0.03 if implementation == 'latency' else 0.02)


def test_skipped_softmax_outputs_the_logits(tmp_path) -> None:
    model = _model(keras.layers.Dense(4, name='logits'), keras.layers.Softmax(name='probabilities'))
    hls_model = convert(model, tmp_path, probabilities={'Skip': True})
    assert [layer.name for layer in hls_model.get_layers()][-1] == 'logits'
    x = _inputs(50)
    logits = keras.Model(model.inputs, model.get_layer('logits').output).predict(x, verbose=0)
    np.testing.assert_allclose(hls_model.predict(x), logits, atol=0.02)


def test_softmax_fed_by_a_wide_auto_type_is_not_uniform(tmp_path) -> None:
    """hls4ml 1.3.0 outputs 1/N here (its table index uses the top bits of the wide type)."""
    model = _model(keras.layers.Dense(5, activation='softmax'))
    hls_model = convert(model, tmp_path, granularity='name')
    softmax = hls_model.get_layers()[-1]
    assert hls_model.graph.input_type(softmax).width > 24
    predicted = check(hls_model, model, _inputs(), atol=0.02)
    assert predicted.std(axis=1).mean() > 0.05


@pytest.mark.parametrize('reuse_factor', [1, 2, 3, 6, 48])
def test_resource_strategy_equals_latency_for_every_reuse_factor(reuse_factor: int, tmp_path) -> None:
    model = _model(keras.layers.Dense(8, activation='relu', name='hidden'), keras.layers.Dense(3))
    latency = convert(model, tmp_path / 'latency')
    resource = convert(model, tmp_path / 'resource', hidden={'Strategy': 'Resource', 'ReuseFactor': reuse_factor})
    assert resource.graph.layers['hidden'].attributes['reuse_factor'] == reuse_factor
    x = _inputs()
    np.testing.assert_array_equal(check(resource, model, x, 0.02), latency.predict(x))


def test_an_impossible_resource_reuse_factor_is_snapped_with_a_warning(tmp_path) -> None:
    model = _model(keras.layers.Dense(8, name='hidden'))
    with pytest.warns(
        UserWarning, match=r"layer 'hidden'.*ReuseFactor 4 is not valid for a 6x8 Resource Dense; using 3"
    ):
        hls_model = convert(model, tmp_path, hidden={'Strategy': 'Resource', 'ReuseFactor': 4})
    check(hls_model, model, _inputs(), 0.02)


def test_trace_returns_every_layer_keyed_like_hls4ml(tmp_path) -> None:
    model = _model(keras.layers.Dense(4, activation='relu', name='hidden'), keras.layers.Softmax(name='out'))
    hls_model = convert(model, tmp_path)
    x = _inputs(50)
    predictions, traces = hls_model.trace(x)
    assert set(traces) == {'dense_in', 'hidden', 'hidden_relu', 'out'}
    _, reference = interpret(hls_model, x)
    for name, values in traces.items():
        assert values.shape == (50, *hls_model.graph.tensors[name].shape)
        np.testing.assert_array_equal(values, reference[name].to_double().astype(values.dtype))
    np.testing.assert_array_equal(predictions, traces['out'])


def test_trace_only_marked_layers(tmp_path) -> None:
    model = _model(keras.layers.Dense(4, activation='relu', name='hidden'))
    hls_model = convert(model, tmp_path, hidden={'Trace': True})
    _, traces = hls_model.trace(_inputs(10))
    assert list(traces) == ['hidden']


def test_predict_shapes_dtypes_and_errors(tmp_path) -> None:
    model = _model(keras.layers.Dense(3))
    hls_model = convert(model, tmp_path)
    x = _inputs(20)
    batch64 = hls_model.predict(x.astype(np.float64))
    assert batch64.shape == (20, 3) and batch64.dtype == np.float64
    batch32 = hls_model.predict(x)
    assert batch32.dtype == np.float32
    np.testing.assert_array_equal(batch32, batch64.astype(np.float32))
    single = hls_model.predict(x[0])
    assert single.shape == (3,)
    np.testing.assert_array_equal(single, batch32[0])
    np.testing.assert_array_equal(hls_model.predict(x.tolist()), batch64)
    for bad in (x[:, :7], np.zeros((8, 20)), np.zeros((2, 4, 4)), np.zeros(9)):
        with pytest.raises(ValueError, match=r"input 'features': expected shape \(n_samples, 8\)"):
            hls_model.predict(bad)
    with pytest.raises(ValueError, match='expected a numeric array'):
        hls_model.predict(np.array([['a'] * 8]))


def _seeded_output(seed: int) -> keras.layers.Dense:
    return keras.layers.Dense(3, name='out', kernel_initializer=keras.initializers.GlorotUniform(seed=seed))


def test_compile_is_cached_and_two_models_live_in_one_process(tmp_path) -> None:
    first = convert(_model(_seeded_output(1), seed=1), tmp_path / 'a')
    second = convert(_model(_seeded_output(2), seed=2), tmp_path / 'b')
    first.compile()
    second.compile()
    x = _inputs(30)
    one, two = first.predict(x), second.predict(x)
    assert not np.array_equal(one, two)
    again = convert(_model(_seeded_output(1), seed=1), tmp_path / 'c')
    again.compile()
    assert again._simulation.from_cache
    np.testing.assert_array_equal(again.predict(x), one)
    np.testing.assert_array_equal(first.predict(x), one)


def test_recompiling_after_a_config_change_gives_new_results(tmp_path) -> None:
    model = _model(keras.layers.Dense(3, name='last'))
    x = _inputs(30)
    coarse = convert(model, tmp_path, precision='ap_fixed<8,4>').predict(x)
    fine = convert(model, tmp_path, precision='ap_fixed<20,8>').predict(x)
    assert np.abs(fine - model.predict(x, verbose=0)).max() < np.abs(coarse - model.predict(x, verbose=0)).max()
