"""Recurrent layers beside the published hls4ml 1.3.0: C-simulation throughput of a small LSTM and GRU,
and how far each implementation's SimpleRNN, LSTM and GRU are from Keras.

    python bench/rnn_peer_bench.py --peer ~/.cache/hls4ml-peer/venv/bin/python [--ours .venv/bin/python]

Each implementation runs in its own interpreter (a worker: this file with --worker), so the peer is
only ever imported by its own venv. Both build the same Keras 3 models from the same seed (weights
uniform in +-0.5, inputs in +-1), convert them at fixed<16,6> for Vitis io_parallel, compile, then time
`predict()` on N samples (after one warm-up call) and report the largest error against Keras.
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

STEPS, FEATURES, UNITS = 8, 4, 8
MODELS = ('lstm', 'gru', 'simple_rnn')


def build(name: str):
    import keras
    import numpy as np

    layer = {'lstm': keras.layers.LSTM, 'gru': keras.layers.GRU, 'simple_rnn': keras.layers.SimpleRNN}[name]
    inputs = keras.Input((STEPS, FEATURES))
    model = keras.Model(inputs, keras.layers.Dense(4)(layer(UNITS)(inputs)))
    rng = np.random.default_rng(7)
    model.set_weights([rng.uniform(-0.5, 0.5, weight.shape).astype(np.float32) for weight in model.get_weights()])
    return model


def worker(name: str, samples: int, directory: str) -> dict:
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    import warnings

    import numpy as np

    warnings.simplefilter('ignore')
    import hls4ml

    model = build(name)
    x = np.ascontiguousarray(np.random.default_rng(1).uniform(-1, 1, (samples, STEPS, FEATURES)).astype(np.float32))
    expected = np.asarray(model(x[:1000]))
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='fixed<16,6>')
    start = time.perf_counter()
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=directory, backend='Vitis', io_type='io_parallel'
    )
    hls_model.compile()
    compile_seconds = time.perf_counter() - start
    hls_model.predict(x[:10])
    start = time.perf_counter()
    predicted = np.asarray(hls_model.predict(x), dtype=np.float64).reshape(samples, -1)
    predict_seconds = time.perf_counter() - start
    return {
        'hls4ml': hls4ml.__version__,
        'model': name,
        'samples per second': samples / predict_seconds,
        'convert + compile seconds': compile_seconds,
        'largest error vs Keras': float(np.abs(predicted[:1000] - expected).max()),
        'output scale': float(np.abs(expected).max()),
    }


def run(python: str, name: str, samples: int, ours: bool) -> dict:
    environment = dict(os.environ)
    environment.pop('PYTHONPATH', None)
    if ours:
        environment['PYTHONPATH'] = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as directory:
        command = [python, __file__, '--worker', name, '--samples', str(samples), '--dir', directory]
        done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=1800)
    if done.returncode:
        return {'model': name, 'error': done.stderr.strip().splitlines()[-1] if done.stderr else 'failed'}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--peer', help='python of the hls4ml 1.3.0 venv')
    parser.add_argument('--ours', default=sys.executable)
    parser.add_argument('--samples', type=int, default=20000)
    parser.add_argument('--worker')
    parser.add_argument('--dir')
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.samples, args.dir)))
        return
    for name in MODELS:
        for label, python in (('ours', args.ours), ('hls4ml 1.3.0', args.peer)):
            if python:
                print(label, json.dumps(run(python, name, args.samples, label == 'ours')), flush=True)


if __name__ == '__main__':
    main()
