"""A small jet-tagging-style MLP as Verilog RTL: Verilator co-simulation and Yosys resources, no vendor tool.

    .venv/bin/python examples/verilog_rtl.py [--output-dir DIR] [--no-synth]

1. Trains a 16-16-5 MLP (ReLU, softmax) on an offline 16-feature, 5-class dataset (scikit-learn's
   make_classification, fixed seed).
2. Converts it twice with the same config (inputs and results ap_fixed<16,6>, 'auto' accumulators, 6-bit
   weights): backend='Vitis' (C-simulation) and backend='Verilog' (RTL).
3. Compiles the RTL with Verilator, predicts the test set on it, checks it bit for bit against the
   C-simulation, measures the latency in clock cycles, and compares the estimate with Yosys' LUT/FF.
Needs `apt-get install verilator yosys` and `pip install 'hls4ml[rtl]'`; about a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

import hls4ml  # noqa: E402

SEED = 7


def trained_model() -> tuple[keras.Model, np.ndarray, np.ndarray]:
    x, y = make_classification(4000, 16, n_informative=10, n_classes=5, random_state=SEED)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=SEED)
    keras.utils.set_random_seed(SEED)
    model = keras.Sequential(
        [
            keras.Input((16,), name='features'),
            keras.layers.Dense(16, activation='relu', name='fc1'),
            keras.layers.Dense(5, activation='softmax', name='output'),
        ]
    )
    model.compile(optimizer='adam', loss='sparse_categorical_crossentropy', metrics=['accuracy'])
    model.fit(x_train, y_train, epochs=15, batch_size=64, verbose=0)
    return model, x_test, y_test


def configure(model: keras.Model) -> dict:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    for settings in config['LayerName'].values():
        precision = settings.get('Precision')
        if isinstance(precision, dict) and 'weight' in precision:
            precision.update({'weight': 'fixed<6,1>', 'bias': 'fixed<6,1>'})
    return config


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='verilog_rtl_example')
    parser.add_argument('--no-synth', action='store_true')
    arguments = parser.parse_args(argv)
    model, x_test, y_test = trained_model()
    config = configure(model)
    convert = hls4ml.converters.convert_from_keras_model
    vitis = convert(model, hls_config=config, output_dir=f'{arguments.output_dir}/vitis', backend='Vitis')
    rtl = convert(model, hls_config=config, output_dir=f'{arguments.output_dir}/rtl', backend='Verilog')
    start = time.perf_counter()
    rtl.compile()
    results: dict = {'verilator compile s': time.perf_counter() - start}
    vitis.compile()
    firmware, reference = rtl.predict(x_test), vitis.predict(x_test)
    float_predictions = model.predict(x_test, verbose=0)
    results['float accuracy'] = float(np.mean(np.argmax(float_predictions, axis=1) == y_test))
    results['RTL accuracy'] = float(np.mean(np.argmax(firmware, axis=1) == y_test))
    results['RTL = C-simulation'] = float(np.mean(firmware == reference))
    results['latency cycles'] = rtl.compiled_simulation('example').latency_cycles(x_test)
    estimate = rtl.estimate().total.resources
    results['estimate LUT'], results['estimate FF'] = estimate['LUT'].low, estimate['FF'].low
    if not arguments.no_synth:
        report = rtl.build()['YosysSynthReport']
        results.update({'Yosys LUT': report['LUT'], 'Yosys FF': report['FF'], 'Yosys DSP': report['DSP48E']})
    for key, value in results.items():
        print(f'{key:>22}: {value:.4g}' if isinstance(value, float) else f'{key:>22}: {value}')
    return results


if __name__ == '__main__':
    main(sys.argv[1:])
