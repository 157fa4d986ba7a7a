"""Side by side with hls4ml 1.3.0 on small sequence models (docs/sequence.md): conversion, compile and
predict() throughput, and the largest difference from Keras, each implementation in its own venv.

    python bench/sequence_bench.py --peer ~/.cache/hls4ml-peer/venv/bin/python [--samples 2000]

The driver runs every model in a fresh worker subprocess per implementation: ours with this checkout
on PYTHONPATH, the peer with its own venv (never imported here). A worker builds the Keras model from
a fixed seed, converts it (Vitis, io_parallel, ap_fixed<16,6>, granularity 'name'), compiles, and
times predict() on the same inputs; a conversion the peer refuses is reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = ('token_mlp_layernorm', 'embedding_layernorm')


def build(name: str):
    """The Keras model and a batch of inputs (seeded, identical in every venv). Axis 2 (the last of a
    (batch, 16, d) tensor) is written out: hls4ml 1.3.0 accepts no other spelling of it."""
    import keras
    import numpy as np

    keras.utils.set_random_seed(7)
    layers = keras.layers
    rng = np.random.default_rng(7)
    if name == 'token_mlp_layernorm':  # 16 tokens of 12 features: Dense per token, LayerNorm, Dense, Softmax
        inputs = keras.Input((16, 12))
        hidden = layers.LayerNormalization(axis=2, name='norm')(layers.Dense(24, activation='relu', name='fc1')(inputs))
        outputs = layers.Softmax(axis=2, name='softmax')(layers.Dense(6, name='fc2')(hidden))
        return keras.Model(inputs, outputs), lambda n: rng.uniform(-2, 2, (n, 16, 12)).astype('float32')
    inputs = keras.Input((16,), dtype='int32')  # 16 token ids of a vocabulary of 50
    embedded = layers.LayerNormalization(axis=2, name='norm')(layers.Embedding(50, 12, name='embedding')(inputs))
    outputs = layers.Dense(4, name='fc')(layers.Flatten(name='flat')(embedded))
    return keras.Model(inputs, outputs), lambda n: rng.integers(0, 50, (n, 16)).astype('int32')


def worker(name: str, samples: int, folder: str) -> dict:
    """One model in the running venv's hls4ml: times and the largest difference from Keras."""
    import numpy as np

    import hls4ml

    model, inputs = build(name)
    x = inputs(samples)
    start = time.perf_counter()
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    if name == 'embedding_layernorm':
        config['LayerName'][model.layers[0].name]['Precision'] = 'ap_int<32>'
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=folder, backend='Vitis', io_type='io_parallel'
    )
    converted = time.perf_counter()
    hls_model.compile()
    compiled = time.perf_counter()
    predicted = np.asarray(hls_model.predict(x.astype('float64')), dtype=np.float64).reshape(samples, -1)
    done = time.perf_counter()
    reference = np.asarray(model.predict(x, verbose=0), dtype=np.float64).reshape(samples, -1)
    return {
        'convert_s': converted - start,
        'compile_s': compiled - converted,
        'predict_samples_per_s': samples / (done - compiled),
        'max_abs_error': float(np.abs(predicted - reference).max()),
    }


def run(python: str, ours: bool, name: str, samples: int) -> dict:
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL='3', KERAS_BACKEND='tensorflow')
    if ours:
        environment['PYTHONPATH'] = str(REPO)
    with tempfile.TemporaryDirectory() as folder:
        command = [python, __file__, '--worker', name, '--samples', str(samples), '--folder', folder]
        done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith('{')]
    if done.returncode or not lines:
        reason = (done.stderr.strip().splitlines() or ['no output'])[-1]
        return {'refused': reason[:200]}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--peer', help='the python of a venv with hls4ml 1.3.0')
    parser.add_argument('--samples', type=int, default=2000)
    parser.add_argument('--worker', help=argparse.SUPPRESS)
    parser.add_argument('--folder', help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.worker:
        print(json.dumps(worker(arguments.worker, arguments.samples, arguments.folder)))
        return
    print('| model | implementation | convert s | compile s | predict samples/s | max abs error vs Keras |')
    print('| --- | --- | --- | --- | --- | --- |')
    for name in MODELS:
        for label, python, ours in (('ours', sys.executable, True), ('hls4ml 1.3.0', arguments.peer, False)):
            if python is None:
                continue
            result = run(python, ours, name, arguments.samples)
            if 'refused' in result:
                print(f'| {name} | {label} | refused: {result["refused"]} | | | |')
                continue
            print(
                f'| {name} | {label} | {result["convert_s"]:.2f} | {result["compile_s"]:.2f} | '
                f'{result["predict_samples_per_s"]:.0f} | {result["max_abs_error"]:.4f} |'
            )


if __name__ == '__main__':
    main()
