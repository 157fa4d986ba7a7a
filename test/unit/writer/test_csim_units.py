"""The split of the C-simulation sources (hls4ml/writer/csim_units.py), without compiling: each unit names
only what its layers use, consecutive layers go together, and what does not fit stays one unit."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.writer import write_project  # noqa: E402
from hls4ml.writer.csim_units import MAX_UNITS, _partition  # noqa: E402


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


@pytest.mark.parametrize(
    ('setting', 'backend', 'header'),
    [('0', 'Vitis', '1'), ('', 'Vitis', '0'), ('1', 'oneAPI', '1'), ('1', 'Catapult', '1')],
)
def test_what_does_not_fit_stays_one_unit(setting: str, backend: str, header: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', setting)
    monkeypatch.setenv('HLS4ML_CSIM_PCH', header)  # without the precompiled header each unit parses every header
    assert _sources(tmp_path, backend).units == ()


def test_by_default_each_weighted_layer_is_a_unit(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv('HLS4ML_CSIM_SPLIT', raising=False)
    monkeypatch.delenv('HLS4ML_CSIM_PCH', raising=False)
    monkeypatch.setattr('hls4ml.writer.csim_units.jobs', lambda: 2)
    units = _sources(tmp_path).units
    assert [unit.layers for unit in units] == [(f'fc{k}', f'fc{k}_relu') for k in range(4)] + [()]


class _Layer:
    def __init__(self, weighted: bool) -> None:
        self.arrays = [object()] if weighted else []


def _shape(groups: list) -> str:
    return ' | '.join(''.join('W' if layer.arrays else '-' for layer in group) for group in groups)


@pytest.mark.parametrize(
    ('layers', 'expected'),
    [
        ('W-W-W-W', 'W- | W- | W- | W'),  # an MLP: each Dense with its activation
        ('W-W-WW', 'W- | W- | W | W'),  # a Dense and the softmax (tables) after it
        ('-W---W---W--W', '-W- | --W- | --W- | -W'),  # a CNN: padding, conv, ReLU, pooling, padding, ...
        ('--W', '--W'),
        ('W---', 'W- | --'),
    ],
)
def test_a_unit_holds_one_weighted_layer_and_its_neighbours(layers: str, expected: str) -> None:
    made = [_Layer(mark == 'W') for mark in layers]
    groups = _partition(made)  # type: ignore[arg-type]
    assert [layer for group in groups for layer in group] == made  # every layer once, in order
    assert _shape(groups) == expected


def test_past_the_cap_the_cheapest_neighbours_merge() -> None:
    made = [_Layer(index % 3 != 2) for index in range(3 * MAX_UNITS)]
    groups = _partition(made)  # type: ignore[arg-type]
    assert len(groups) == MAX_UNITS
    assert [layer for group in groups for layer in group] == made
