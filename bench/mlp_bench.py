"""Conversion, compile (cold and cached) and predict throughput of the jet-tagging MLP (16-64-32-32-5).

    .venv/bin/python bench/mlp_bench.py [--samples 100000] [--repeat 3]

Each repeat converts the same model into a fresh directory with a fresh compile cache (cold), then
compiles again (cached), then predicts `--samples` inputs in one call. Medians are printed as a
Markdown table. For the side-by-side with hls4ml 1.3.0 on the same machine, run
`../shared/bench/peer_compare.sh --models mlp_latency,mlp_resource_rf4` (see bench/README.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402

import hls4ml  # noqa: E402

CASES = {
    'Latency, RF 1': {'Strategy': 'Latency', 'ReuseFactor': 1},
    'Resource, RF 4': {'Strategy': 'Resource', 'ReuseFactor': 4},
}


def make_model() -> keras.Model:
    keras.utils.set_random_seed(1234)
    layers = [keras.Input((16,), name='input_1')]
    layers += [keras.layers.Dense(units, activation='relu', name=f'fc{i}') for i, units in enumerate((64, 32, 32), 1)]
    layers += [keras.layers.Dense(5, activation='softmax', name='output')]
    return keras.Sequential(layers)


def measure(model: keras.Model, settings: dict, x: np.ndarray) -> dict[str, float]:
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
    config['Model'].update(settings)
    with tempfile.TemporaryDirectory() as work:
        os.environ['HLS4ML_CACHE_DIR'] = os.path.join(work, 'cache')
        start = time.perf_counter()
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=os.path.join(work, 'prj'), backend='Vitis'
        )
        hls_model.write()
        convert = time.perf_counter() - start
        start = time.perf_counter()
        hls_model.compile()
        cold = time.perf_counter() - start
        start = time.perf_counter()
        hls_model.compile()
        cached = time.perf_counter() - start
        start = time.perf_counter()
        hls_model.predict(x)
        rate = len(x) / (time.perf_counter() - start)
    return {'convert': convert, 'cold': cold, 'cached': cached, 'rate': rate}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--samples', type=int, default=100_000)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    model = make_model()
    x = np.random.default_rng(0).standard_normal((args.samples, 16)).astype(np.float32)
    print(
        f'MLP 16-64-32-32-5, ap_fixed<16,6>, Vitis, io_parallel; medians of {args.repeat} runs, {args.samples} samples'
    )
    print('| strategy | convert+write s | compile cold s | compile cached s | predict samples/s |')
    print('|---|---|---|---|---|')
    for label, settings in CASES.items():
        runs = [measure(model, settings, x) for _ in range(args.repeat)]
        median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        print(
            f'| {label} | {median["convert"]:.3f} | {median["cold"]:.2f} | {median["cached"]:.3f} | '
            f'{median["rate"]:,.0f} |'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
