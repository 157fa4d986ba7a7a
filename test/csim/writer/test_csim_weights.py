"""The C-simulation compiles its weights as data (hls4ml/writer/csim_weights.py): the library holds
the very bits the literal headers of the HLS project spell, and the blobs are part of the cache key."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

keras = pytest.importorskip('keras')

import hls4ml  # noqa: E402
from hls4ml.csim.simulation import Simulation  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.writer import write_project  # noqa: E402

pytestmark = pytest.mark.csim


def _mlp(seed: int = 0) -> keras.Model:
    rng = np.random.default_rng(seed)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(9, activation='relu'), keras.layers.Dense(3)])
    model.set_weights([rng.uniform(-1, 1, weight.shape) for weight in model.get_weights()])
    return model


def _convert(model: keras.Model, folder, **layer_precision) -> hls4ml.model.ModelGraph:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    for layer, precision in layer_precision.items():
        config['LayerName'][layer]['Precision'] = precision
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder), backend='Vitis', io_type='io_parallel'
    )


def test_weights_compile_as_blobs_with_the_bits_of_the_literal_headers(tmp_path) -> None:
    hls_model = _convert(_mlp(), tmp_path / 'prj')
    written = write_project(hls_model.design)
    files = written.csim.sources.files
    weights = [path for path in files if path.startswith('firmware/weights/') and path.endswith('.bin')]
    assert weights, 'the simulation sources embed no weight blobs'
    for blob in weights:
        header = files[blob.replace('.bin', '.h')].decode()
        assert '.incbin' in header and '_VALUES' not in header
        assert '_VALUES' in (written.path / blob.replace('.bin', '.h')).read_text()  # the HLS project keeps literals
    on_disk = {path: (written.path / path).read_bytes() for path in files if (written.path / path).is_file()}
    literal_files = {**{path: content for path, content in files.items() if not path.endswith('.bin')}, **on_disk}
    # the project's own top and literal headers, as one translation unit (the split's units embed the blobs)
    literal_sources = dataclasses.replace(written.csim.sources, files=literal_files, units=())
    literal = dataclasses.replace(written.csim, sources=literal_sources)
    x = np.random.default_rng(1).uniform(-4, 4, (500, 6))
    from_blobs = Simulation.build(written.csim).predict(x)
    from_literals = Simulation.build(literal).predict(x)
    np.testing.assert_array_equal(from_blobs, from_literals)
    assert np.abs(from_blobs).max() > 0


def test_changed_weights_build_a_new_library(tmp_path) -> None:
    model = _mlp()
    first = _convert(model, tmp_path / 'first')
    first.compile()
    x = np.random.default_rng(2).uniform(-4, 4, (200, 6))
    before = first.predict(x)
    weights = model.get_weights()
    weights[0] = weights[0] * 0.5
    model.set_weights(weights)
    second = _convert(model, tmp_path / 'second')
    second.compile()
    assert second._simulation.library_path != first._simulation.library_path
    after = second.predict(x)
    assert not np.array_equal(before, after)
    references, _ = interpret(second, x)
    np.testing.assert_array_equal(after, references[0].to_double())
