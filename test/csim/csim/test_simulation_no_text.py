"""The C-simulation library is compiled without <string> and <deque> (HLS4ML_CSIM_NO_TEXT, a flag of
hls4ml/csim/compiler.py): parsing them was about a third of a small model's cold compile. The test
lists the headers g++ reads for the written simulation sources of a small io_stream CNN, whose kernels
use the fixed-point types and hls::stream, and checks that the library still predicts."""

from __future__ import annotations

import os
import shutil
import subprocess

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.csim.compiler import CXX_FLAGS  # noqa: E402
from hls4ml.writer import write_project  # noqa: E402

pytestmark = pytest.mark.csim

TEXT_HEADERS = ('/string', '/deque', '/basic_string.h', '/stl_deque.h', '/sstream', '/iostream')


def _model() -> keras.Model:
    rng = np.random.default_rng(3)
    model = keras.Sequential(
        [
            keras.Input((6, 6, 2)),
            keras.layers.Conv2D(3, 3, activation='relu'),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(),
            keras.layers.Dense(4),
            keras.layers.Softmax(),
        ]
    )
    model.set_weights([rng.uniform(-0.5, 0.5, weight.shape) for weight in model.get_weights()])
    return model


def test_simulation_sources_parse_without_string_or_deque(tmp_path) -> None:
    compiler = shutil.which('g++')
    if compiler is None:
        pytest.skip('g++ is not installed')
    model = _model()
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_stream'
    )
    sources = write_project(hls_model.design).csim.sources
    sources.materialise(tmp_path / 'sim')
    flags = [flag for flag in CXX_FLAGS if flag != '-shared']
    includes = [f'-I{folder}' for folder in sources.include_dirs]
    command = [compiler, *flags, *sources.defines, *includes, '-fsyntax-only', '-H', sources.translation_unit]
    process = subprocess.run(command, cwd=tmp_path / 'sim', capture_output=True, text=True)
    assert process.returncode == 0, process.stderr[-3000:]
    read = [line.split()[-1] for line in process.stderr.splitlines() if line.startswith('.')]
    assert any(path.endswith('hls_stream.h') for path in read) and any(path.endswith('core.h') for path in read)
    assert not [path for path in read if path.endswith(TEXT_HEADERS)]

    hls_model.compile()
    x = np.random.default_rng(4).uniform(-1, 1, (8, 6, 6, 2))
    predictions = np.asarray(hls_model.predict(x)).reshape(8, 4)
    np.testing.assert_allclose(predictions, model.predict(x, verbose=0), atol=0.05)
