"""Recurrent layers from Keras 3, compiled on every backend in both IO types: predict() equals the
reference interpreter bit for bit, and Keras within the tolerance the types explain.

One model holds every kind and form: Bidirectional(GRU, reset_after, 'sum') -> LSTM(go_backwards) ->
GRU(reset_after=False) -> SimpleRNN(relu) -> Dense. Each backend runs another implementation: Vitis the
static cell (Latency), oneAPI the unrolled cells (Resource, ReuseFactor 2, RecurrentReuseFactor 3),
Catapult the static cell (Resource); the arithmetic must not depend on them.

Tolerance (`framework_tolerance`): states and accumulators are 24-bit with 16 fraction bits, so a write
loses at most 2^-16. A table reads its left grid point: at most one step (TableSize 8192) times the
slope (1 for tanh and softsign, 1/4 for sigmoid), plus the table type's LSB. A state value passes
through at most three lookups per step; with weights below 0.3 in magnitude a layer does not amplify
an error it reads (each gate's row sums are below 1 and the gates are contractions), so the errors of
the layers and the steps add up: bound = layers x steps x (3 x table error + state LSB).
"""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.model.kinds import RECURRENT  # noqa: E402
from hls4ml.model.layer_tables import layer_tables  # noqa: E402

pytestmark = pytest.mark.csim

STEPS, FEATURES = 5, 3
TABLES = {
    'SimpleRNN': ('act_table',),
    'GRU': ('act_table', 'rec_table'),
    'LSTM': ('act_table', 'rec_table', 'cell_table'),
}
SLOPES = {'tanh': 1.0, 'softsign': 1.0, 'sigmoid': 0.25}
IMPLEMENTATIONS = {
    'Vitis': {'Strategy': 'Latency', 'Static': True},
    'oneAPI': {'Strategy': 'Resource', 'Static': False, 'ReuseFactor': 2, 'RecurrentReuseFactor': 3},
    'Catapult': {'Strategy': 'Resource', 'Static': True},
}


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    inputs = keras.Input((STEPS, FEATURES))
    x = keras.layers.Bidirectional(keras.layers.GRU(3, return_sequences=True), merge_mode='sum', name='bi_gru')(inputs)
    x = keras.layers.LSTM(3, return_sequences=True, go_backwards=True, name='lstm')(x)
    x = keras.layers.GRU(3, return_sequences=True, reset_after=False, name='gru')(x)
    x = keras.layers.SimpleRNN(3, activation='relu', name='rnn')(x)
    model = keras.Model(inputs, keras.layers.Dense(2, name='dense')(x))
    rng = np.random.default_rng(5)
    model.set_weights([rng.uniform(-0.3, 0.3, weight.shape) for weight in model.get_weights()])
    return model


def hls_config(backend: str) -> dict:
    layer_types = {
        kind: {'Precision': dict.fromkeys(TABLES[kind], 'fixed<20,2>'), 'TableSize': 8192, **IMPLEMENTATIONS[backend]}
        for kind in TABLES
    }
    return {'Model': {'Precision': 'fixed<24,8>', 'ReuseFactor': 1, 'Strategy': 'Latency'}, 'LayerType': layer_types}


def framework_tolerance(model: hls4ml.model.ModelGraph) -> float:
    """The bound of the module docstring, from the layers' own tables and state types."""
    layers = [layer for layer in model.graph.layers.values() if layer.kind in RECURRENT]
    worst = 0.0
    for layer in layers:
        tables = layer_tables(layer, layer.types['accum'])
        errors = [spec.step * SLOPES[spec.function] + 2.0**-spec.table_type.fractional for spec in tables.values()]
        worst = max(worst, 3 * max(errors, default=0.0) + 2.0 ** -layer.types['state'].fractional)
    return len(layers) * STEPS * worst


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_recurrent_layers(tmp_path, keras_model: keras.Model, backend: str, io_type: str) -> None:
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=hls_config(backend), output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = np.random.default_rng(1).uniform(-1, 1, (64, STEPS, FEATURES))
    predicted = np.asarray(model.predict(x), dtype=np.float64).reshape(len(x), -1)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    expected = np.asarray(keras_model(x.astype(np.float32)), dtype=np.float64)
    tolerance = framework_tolerance(model)  # a worst case, 0.147 here; measured: 1.7e-4 (semantics: the unit tests)
    np.testing.assert_allclose(predicted, expected, atol=tolerance, rtol=0)
