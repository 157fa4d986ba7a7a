"""hls4ml 1.x import paths keep working after the IR moved to the ground floor: `ModelGraph` and the
profiling functions live above `hls4ml.model` now and are re-exported lazily (pyproject.toml's
import-linter contracts name these two re-exports)."""

import importlib


def test_model_graph_from_its_1x_paths() -> None:
    from hls4ml.api import ModelGraph
    from hls4ml.model import ModelGraph as from_package
    from hls4ml.model.graph import ModelGraph as from_module

    assert from_package is from_module is ModelGraph
    assert importlib.import_module('hls4ml.model.graph').ModelGraph is ModelGraph


def test_profiling_from_its_1x_path() -> None:
    from hls4ml.model import profiling as old
    from hls4ml.model.profiling import compare, numerical
    from hls4ml.utils import profiling

    assert numerical is profiling.numerical and compare is profiling.compare
    assert old.overflow_summary is profiling.overflow_summary


def test_unknown_names_still_raise_attribute_errors() -> None:
    import hls4ml.model
    import hls4ml.model.graph

    for module in (hls4ml.model, hls4ml.model.graph):
        try:
            module.NoSuchThing  # noqa: B018
        except AttributeError as error:
            assert 'NoSuchThing' in str(error)
        else:
            raise AssertionError(f'{module.__name__}.NoSuchThing did not raise')
