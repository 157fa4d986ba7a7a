"""The transformer blocks of examples/transformer_keras.py and examples/transformer_pytorch.py
(untrained: random weights) on the backends and IO types the examples do not run: predict() equals
the emulator bit for bit, so every backend computes the same bits (the examples check the accuracy
against the frameworks on Vitis io_parallel)."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim
EXAMPLES = Path(__file__).resolve().parents[3] / 'examples'
PRECISION = 'fixed<18,8>'  # as in the examples, through config_from_*_model(granularity='name')


def example(name: str):
    spec = importlib.util.spec_from_file_location(f'blocks_{name}', EXAMPLES / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_bit_exact(hls_model, x) -> None:
    hls_model.compile()
    emulated, _ = interpret(hls_model, x)
    np.testing.assert_array_equal(np.asarray(hls_model.predict(x)).reshape(len(x), -1), emulated[0].to_double())
    assert hls_model.estimate().latency_cycles


@pytest.mark.parametrize('backend, io_type', [('oneAPI', 'io_parallel'), ('Catapult', 'io_stream')])
def test_keras_encoder_and_vit_moe_blocks(tmp_path, backend: str, io_type: str) -> None:
    pytest.importorskip('keras')
    blocks = example('transformer_keras')
    tokens = np.random.default_rng(0).integers(0, 6, (20, 6)).astype(np.int32)
    images = np.random.default_rng(1).integers(0, 17, (20, 8, 8)) / 16
    for name, model, x in (('encoder', blocks.encoder(), tokens), ('vit', blocks.vit_moe_block(), images)):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=PRECISION)
            hls_model = hls4ml.converters.convert_from_keras_model(
                model, hls_config=config, output_dir=str(tmp_path / name), backend=backend, io_type=io_type
            )
        check_bit_exact(hls_model, x)


@pytest.mark.parametrize('backend, io_type', [('Catapult', 'io_parallel'), ('oneAPI', 'io_stream')])
def test_pytorch_encoder_block(tmp_path, backend: str, io_type: str) -> None:
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    model = example('transformer_pytorch').Encoder().eval()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        config = hls4ml.utils.config_from_pytorch_model(
            model, input_shape=(6,), granularity='name', default_precision=PRECISION
        )
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
        )
    check_bit_exact(hls_model, np.random.default_rng(2).integers(0, 6, (20, 6)))
