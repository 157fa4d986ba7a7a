"""The 'bipolar' activation (QONNX BipolarQuant) through a whole graph: GraphBuilder -> ModelGraph ->
write -> g++ -> predict(), in both io types, against the reference interpreter and the numpy definition
y = +1 if x >= 0 else -1 of the quantized input (x == 0 gives +1).

No frontend emits 'bipolar' yet, so the IR is built directly with the GraphBuilder.
"""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.types import parse_precision

pytestmark = pytest.mark.csim
N_IN = 8
INPUT_TYPE = 'fixed<16,6>'
LSB = 2.0**-10


# (input, bipolar of its fixed<16,6> value): zero, -0.0, positive values that truncate to 0, one LSB
# either side of 0 (negative fractions of an LSB truncate to -LSB), the ends, and values that wrap
EDGES = [
    (0.0, 1),
    (-0.0, 1),
    (0.3 * LSB, 1),
    (0.99 * LSB, 1),
    (LSB, 1),
    (-LSB, -1),
    (-0.3 * LSB, -1),
    (31.999, 1),
    (-32.0, -1),
    (40.0, -1),
    (-40.0, 1),
]


def _inputs() -> np.ndarray:
    """The EDGES in the first samples (padded with zeros), then random samples."""
    edges = np.zeros(N_IN * -(-len(EDGES) // N_IN))
    edges[: len(EDGES)] = [value for value, _ in EDGES]
    random = np.random.default_rng(5).normal(0, 2, (40, N_IN))
    return np.concatenate([edges.reshape(-1, N_IN), random])


def _model(tmp_path, io_type: str, result: str | None) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (N_IN,))
    y = builder.activation(Origin('act', 'bipolar'), x, 'bipolar')
    builder.output(y, Origin('out', 'output'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': INPUT_TYPE, 'ReuseFactor': 1}}
    if result is not None:
        config['HLSConfig']['LayerName'] = {'act': {'Precision': {'result': result}}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize('result, inferred', [(None, INPUT_TYPE), ('auto', 'fixed<2,2>')])
@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_bipolar_predict_matches_interpreter_and_definition(tmp_path, io_type, result, inferred) -> None:
    model = _model(tmp_path, io_type, result)
    assert model.graph.layers['act'].types['result'] == parse_precision(inferred)
    x = _inputs()
    predicted = model.predict(x)
    (interpreted,), _ = interpret(model, x)
    definition = np.where(quantize(x, INPUT_TYPE).value >= 0, 1.0, -1.0)
    np.testing.assert_array_equal(interpreted.value, definition)
    np.testing.assert_array_equal(predicted, definition.astype(predicted.dtype))
    assert predicted.reshape(-1)[: len(EDGES)].tolist() == [expected for _, expected in EDGES]
