"""Conversion, compile (cold and cached) and predict throughput of the jet-tagging MLP (16-64-32-32-5)
and of the example CNN (16x16x1 -> Conv2D(4,3x3,relu) -> MaxPool 2x2 -> Conv2D(8,3x3,relu) -> Flatten
-> Dense(10, softmax)) in both IO types.

    .venv/bin/python bench/mlp_bench.py [--samples 100000] [--repeat 3] [--models mlp,cnn]

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

CASES = {  # model -> {label: (model-level settings, io_type)}
    'mlp': {
        'Latency, RF 1': ({'Strategy': 'Latency', 'ReuseFactor': 1}, 'io_parallel'),
        'Resource, RF 4': ({'Strategy': 'Resource', 'ReuseFactor': 4}, 'io_parallel'),
    },
    'cnn': {
        'Latency, io_parallel': ({'Strategy': 'Latency', 'ReuseFactor': 1}, 'io_parallel'),
        'Latency, io_stream': ({'Strategy': 'Latency', 'ReuseFactor': 1}, 'io_stream'),
    },
}


def make_model(name: str) -> keras.Model:
    keras.utils.set_random_seed(1234)
    layers = keras.layers
    if name == 'cnn':
        return keras.Sequential(
            [
                keras.Input((16, 16, 1), name='input_1'),
                layers.Conv2D(4, 3, activation='relu'),
                layers.MaxPooling2D(2),
                layers.Conv2D(8, 3, activation='relu'),
                layers.Flatten(),
                layers.Dense(10, activation='softmax'),
            ]
        )
    stack = [keras.Input((16,), name='input_1')]
    stack += [layers.Dense(units, activation='relu', name=f'fc{i}') for i, units in enumerate((64, 32, 32), 1)]
    return keras.Sequential([*stack, layers.Dense(5, activation='softmax', name='output')])


def measure(model: keras.Model, settings: dict, io_type: str, x: np.ndarray) -> dict[str, float]:
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
    config['Model'].update(settings)
    with tempfile.TemporaryDirectory() as work:
        os.environ['HLS4ML_CACHE_DIR'] = os.path.join(work, 'cache')
        start = time.perf_counter()
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=os.path.join(work, 'prj'), backend='Vitis', io_type=io_type
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
    parser.add_argument('--models', default='mlp,cnn', help='comma-separated: mlp, cnn')
    args = parser.parse_args()
    print(f'ap_fixed<16,6>, Vitis; medians of {args.repeat} runs, {args.samples} samples (CNN: a tenth)')
    print('| model | case | convert+write s | compile cold s | compile cached s | predict samples/s |')
    print('|---|---|---|---|---|---|')
    for name in args.models.split(','):
        model = make_model(name)
        samples = args.samples if name == 'mlp' else args.samples // 10
        x = np.random.default_rng(0).standard_normal((samples, *model.inputs[0].shape[1:])).astype(np.float32)
        for label, (settings, io_type) in CASES[name].items():
            runs = [measure(model, settings, io_type, x) for _ in range(args.repeat)]
            median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            print(
                f'| {name} | {label} | {median["convert"]:.3f} | {median["cold"]:.2f} | {median["cached"]:.3f} | '
                f'{median["rate"]:,.0f} |'
            )
    return 0


if __name__ == '__main__':
    sys.exit(main())
