"""The split of the C-simulation sources (hls4ml/writer/csim_units.py), without compiling: each unit names
only what its layers use, consecutive layers go together, and what does not fit stays one unit."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.writer import write_project  # noqa: E402
from hls4ml.writer.csim_units import BRIDGE_COST, _partition  # noqa: E402


def _sources(tmp_path, backend: str = 'Vitis'):
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [keras.Input((4,)), *[keras.layers.Dense(4, activation='relu', name=f'fc{k}') for k in range(4)]]
    )
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    converted = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend=backend
    )
    return write_project(converted.design).csim.sources


def test_each_unit_declares_only_its_layers(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '1')
    sources = _sources(tmp_path)
    layer_units = [unit for unit in sources.units if unit.layers]
    assert len(layer_units) >= 2 and sources.units[-1].layers == ()  # the bridge last
    named = [layer for unit in layer_units for layer in unit.layers]
    assert named == [f'fc{k}{suffix}' for k in range(4) for suffix in ('', '_relu')]  # in order, each once
    for unit in layer_units:
        text = sources.files[unit.source].decode()
        structs = {line.split()[1] for line in text.splitlines() if line.startswith('struct ')}
        assert len(structs) == len(unit.layers)
        assert all(path.startswith(unit.source) or '/weights/' in path for path in unit.depends)
    top = sources.files['firmware/myproject.cpp'].decode()
    assert 'parameters.h' not in top and 'struct ' not in top


@pytest.mark.parametrize(('setting', 'backend'), [('0', 'Vitis'), ('', 'Vitis'), ('1', 'oneAPI'), ('1', 'Catapult')])
def test_what_does_not_fit_stays_one_unit(setting: str, backend: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', setting)
    assert _sources(tmp_path, backend).units == ()


class _Layer:
    def __init__(self, weighted: bool) -> None:
        self.arrays = [object()] if weighted else []


def test_partition_keeps_order_and_balances_cost() -> None:
    layers = [_Layer(weighted) for weighted in (True, False, True, False, True, False)]
    groups = _partition(layers, 3)  # type: ignore[arg-type]
    assert [layer for group in groups for layer in group] == layers
    costs = [sum(2 if layer.arrays else 1 for layer in group) for group in groups]
    costs[-1] += BRIDGE_COST  # the bridge follows the last group on its core
    assert len(groups) == 3 and max(costs) - min(costs) <= 2  # within one layer with weights
    assert [len(group) for group in _partition(layers, 6)] == [1] * 6  # type: ignore[arg-type]
