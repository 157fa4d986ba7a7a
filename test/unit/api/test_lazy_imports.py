"""Converting and writing a model loads only what it needs (docs/performance.md, "Conversion"): the
C-simulation, the rarer Keras handlers, the maps, the recurrent kernels, PyYAML and the plotting load on
first use, and still resolve."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KERAS = Path(__file__).resolve().parents[3] / 'hls4ml' / 'converters' / 'keras'

# A Dense MLP converted and written in a fresh process must not load these.
NOT_LOADED = (
    'hls4ml.csim.compiler',
    'hls4ml.csim.simulation',
    'hls4ml.writer.csim_sources',
    'hls4ml.converters.keras.attention',
    'hls4ml.converters.keras.hgq',
    'hls4ml.converters.keras.recurrent',
    'hls4ml.converters.keras.som',
    'hls4ml.converters.som',
    'hls4ml.model.reference.recurrent',
    'hls4ml.nn.resom_core',
    'hls4ml.utils.plotting',
    'yaml',
)

SCRIPT = """
import json, sys, keras
import hls4ml
inputs = keras.Input((4,))
model = keras.Model(inputs, keras.layers.Dense(3, activation='relu')(keras.layers.Dense(5)(inputs)))
config = hls4ml.utils.config_from_keras_model(model, granularity='name')
hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=config, output_dir=sys.argv[1])
hls_model.write()
print(json.dumps(sorted(name for name in sys.modules if name.startswith(('hls4ml', 'yaml')))))
"""


def test_a_dense_model_converts_and_writes_without_the_rest(tmp_path: Path) -> None:
    pytest.importorskip('keras', reason='needs Keras 3')
    environment = {**os.environ, 'KERAS_BACKEND': os.environ.get('KERAS_BACKEND', 'tensorflow')}
    run = subprocess.run(
        [sys.executable, '-c', SCRIPT, str(tmp_path / 'prj')], capture_output=True, text=True, env=environment
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = set(json.loads(run.stdout.strip().splitlines()[-1]))
    assert 'hls4ml.converters.keras.handlers' in loaded  # the check can fail: the frontend was loaded
    assert (tmp_path / 'prj' / 'firmware' / 'myproject.cpp').is_file()
    assert sorted(loaded & set(NOT_LOADED)) == []


def _registering_modules() -> set[str]:
    """The modules of the Keras frontend with an `@handles(...)` decorator."""
    found = set()
    for path in KERAS.glob('*.py'):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, 'id', '') == 'handles' for d in node.decorator_list
            ):
                found.add(path.stem)
    return found


def test_every_module_with_handlers_is_registered_eagerly_or_later() -> None:
    from hls4ml.converters.keras.handlers import LATER

    package = ast.parse((KERAS / '__init__.py').read_text())
    eager = {alias.name for node in ast.walk(package) if isinstance(node, ast.ImportFrom) for alias in node.names}
    missing = _registering_modules() - eager - set(LATER) - {'handlers'}
    assert 'spatial' in eager and len(_registering_modules()) > len(LATER)
    assert sorted(missing) == []


def test_a_rarer_class_loads_its_handler_on_lookup() -> None:
    from hls4ml.converters.keras.handlers import HANDLERS

    assert 'LSTM' in HANDLERS and HANDLERS['LSTM'].__module__ == 'hls4ml.converters.keras.recurrent'
    assert 'NoSuchLayer' not in HANDLERS
    with pytest.raises(KeyError, match='NoSuchLayer'):
        HANDLERS['NoSuchLayer']


def test_a_second_handler_for_a_class_is_refused() -> None:
    from hls4ml.converters.keras.handlers import HANDLERS, handles

    with pytest.raises(ValueError, match="two handlers for the Keras class 'Dense'"):
        handles('Dense', produces=())(lambda source: [])
    assert HANDLERS['Dense'].__module__ == 'hls4ml.converters.keras.handlers'


def test_the_names_loaded_on_first_use_resolve() -> None:
    import hls4ml.converters
    import hls4ml.csim
    import hls4ml.utils
    import hls4ml.writer
    from hls4ml.converters.som import convert_from_minisom
    from hls4ml.csim.simulation import Simulation
    from hls4ml.utils.plotting import plot_model
    from hls4ml.writer.csim_sources import precompile_headers

    assert hls4ml.converters.convert_from_minisom is convert_from_minisom
    assert hls4ml.csim.Simulation is Simulation
    assert hls4ml.utils.plot_model is plot_model
    assert hls4ml.writer.precompile_headers is precompile_headers
    with pytest.raises(AttributeError, match="module 'hls4ml.converters' has no attribute 'convert_from_nothing'"):
        hls4ml.converters.convert_from_nothing  # noqa: B018
