"""On-chip learning without a compiler (hls4ml/learning, backends/common/learning.py): the learning
types, the schedules, the learning top functions a project is written with, and the refusals that come
before any C runs."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.api.model_graph import ModelGraph
from hls4ml.converters.resom import resom_graph
from hls4ml.converters.som import som_graph
from hls4ml.learning import schedules
from hls4ml.model.learning_types import exact_distance_type
from hls4ml.model.types import FixedPrecisionType


def _model(graph, tmp_path, backend: str = 'Vitis', layer_config: dict | None = None) -> ModelGraph:
    config = {
        'OutputDir': str(tmp_path / backend),
        'ProjectName': 'myproject',
        'Backend': backend,
        'IOType': 'io_parallel',
        'ClockPeriod': 5,
        'HLSConfig': {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, **(layer_config or {})},
    }
    return ModelGraph(config, graph)


def _som(distance: str = 'squared_euclidean'):
    graph, _ = som_graph(np.random.default_rng(0).random((6, 3)), (2, 3), distance, 'index')
    return graph


def test_schedules_follow_their_definitions() -> None:
    np.testing.assert_allclose(schedules.asymptotic_decay(0.5, 4), [0.5, 0.5 / 1.5, 0.25, 0.5 / 2.5])
    np.testing.assert_allclose(schedules.exponential_decay(1.0, 0.01, 3), [1.0, 0.1, 0.01])
    np.testing.assert_allclose(schedules.per_step('exponential', 1.0, 0.01, 3, 2), [1, 1, 0.1, 0.1, 0.01, 0.01])
    tables = schedules.neighbourhood_tables(np.array([1.0, 2.0]), 3)
    np.testing.assert_allclose(tables[1], np.exp(-np.array([0, 1, 4]) / 8.0))


def test_the_distance_type_holds_every_codebook_exactly() -> None:
    data, codebook = FixedPrecisionType(8, 3), FixedPrecisionType(10, 1, False)
    accum = exact_distance_type(data, codebook, 5, 'squared_euclidean')
    worst = 5 * max(abs(data.min - codebook.max), abs(data.max - codebook.min)) ** 2
    assert accum.max >= worst and accum.fractional == 2 * codebook.fractional
    assert exact_distance_type(data, codebook, 5, 'manhattan').max >= 5 * (codebook.max - data.min)


def test_a_som_project_has_a_kohonen_top_function(tmp_path) -> None:
    model = _model(_som(), tmp_path)
    model.write()
    source = (tmp_path / 'Vitis' / 'firmware' / 'myproject_learn.cpp').read_text()
    assert 'void myproject_learn_som(' in source and 'nnet::kohonen_update<' in source
    assert '#pragma HLS INTERFACE ap_memory port=codebook' in source
    assert 'myproject_learn_som_run' in (tmp_path / 'Vitis' / 'myproject_bridge.cpp').read_text()
    script = (tmp_path / 'Vitis' / 'build_learn.tcl').read_text()
    assert 'set_top myproject_learn_som' in script and 'add_files firmware/${project_name}_learn.cpp' in script


def test_oneapi_writes_the_learning_file_with_its_sources(tmp_path) -> None:
    model = _model(_som(), tmp_path, 'oneAPI')
    model.write()
    assert (tmp_path / 'oneAPI' / 'src' / 'firmware' / 'myproject_learn.cpp').exists()


def test_a_resom_project_has_a_hebbian_top_function(tmp_path) -> None:
    rng = np.random.default_rng(1)
    graph, _ = resom_graph(rng.random((4, 3)), (2, 2), rng.random((6, 2)), (2, 3), rng.random((4, 6)), output='index')
    model = _model(graph, tmp_path)
    model.write()
    source = (tmp_path / 'Vitis' / 'firmware' / 'myproject_learn.cpp').read_text()
    assert 'nnet::hebbian_step<learn_config' in source and 'port=lateral' in source
    assert 'unsigned rule' in source


@pytest.mark.parametrize(('distance', 'implementation'), [('cosine', None), ('squared_euclidean', 'dense')])
def test_maps_that_cannot_learn_get_no_top_function_and_a_clear_error(tmp_path, distance, implementation) -> None:
    layers = {'LayerName': {'som': {'Implementation': implementation}}} if implementation else {}
    model = _model(_som(distance), tmp_path, layer_config=layers)
    model.write()
    assert not (tmp_path / 'Vitis' / 'firmware' / 'myproject_learn.cpp').exists()
    model._simulation = object()  # stands for a compiled library: the refusal comes before it is used
    with pytest.raises(ValueError, match="distance 'cosine'|Implementation 'dense'"):
        model.learner('som')


def test_learning_needs_a_compiled_model_and_a_map(tmp_path) -> None:
    model = _model(_som(), tmp_path)
    with pytest.raises(RuntimeError, match=r'call hls_model.compile\(\) first'):
        model.learner('som')
    with pytest.raises(ValueError, match="no layer 'dense'.*'som'"):
        model.learner('dense')
    with pytest.raises(ValueError, match='for SOM, ReSOM and ReSOMMaps layers, not Input'):
        model.learner('input')


def test_update_weights_refuses_what_does_not_fit(tmp_path) -> None:
    model = _model(_som(), tmp_path)
    with pytest.raises(ValueError, match="weights 'codebook' must be finite of shape"):
        model.update_weights('som', {'codebook': np.zeros((5, 3))})
    with pytest.raises(ValueError, match="weights 'codebook' must be finite"):
        model.update_weights('som', {'codebook': np.full((6, 3), np.nan)})
    with pytest.raises(ValueError, match="no layer 'soms'"):
        model.update_weights('soms', {'codebook': np.zeros((6, 3))})
    model.update_weights('som', {'codebook': np.full((6, 3), 0.5)})
    np.testing.assert_array_equal(model.graph.layers['som'].weights['codebook'], np.full((6, 3), 0.5))
