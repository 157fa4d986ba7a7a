"""An LSTM that flags anomalies in a noisy sine, trained in Keras 3 and converted to firmware.

    .venv/bin/python examples/lstm_timeseries.py [--output-dir DIR] [--backend Vitis|oneAPI|Catapult]

The data is generated here (no network): windows of 24 samples of a sine with a random frequency, phase
and amplitude plus noise. Half of them carry an anomaly somewhere in the window: a spike, a flat
stretch (a stuck sensor) or a jump in frequency. The model reads the window one sample per step
(`LSTM(8)`, its last h) and a Dense layer gives two scores (normal, anomaly).

Prints the accuracy of float Keras and of the firmware (C-simulation, bit-exact with the hardware) and
how often the two agree. About 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402

import hls4ml  # noqa: E402

SEED = 3
STEPS, UNITS = 24, 8


def window(rng: np.random.Generator, anomalous: bool) -> np.ndarray:
    """One window of STEPS samples; an anomaly is a spike, a flat stretch or a frequency jump."""
    time = np.arange(STEPS)
    frequency, phase, amplitude = rng.uniform(0.2, 0.5), rng.uniform(0, 2 * np.pi), rng.uniform(0.6, 1.0)
    signal = amplitude * np.sin(frequency * time + phase)
    if anomalous:
        start = rng.integers(2, STEPS - 6)
        kind = rng.integers(3)
        if kind == 0:
            signal[start] += rng.choice([-1, 1]) * rng.uniform(1.0, 1.5)
        elif kind == 1:
            signal[start : start + 6] = signal[start]
        else:
            signal[start:] = amplitude * np.sin(2.5 * frequency * time[start:] + phase)
    return signal + rng.normal(0, 0.05, STEPS)


def dataset(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, 2, count)
    windows = np.stack([window(rng, bool(label)) for label in labels])
    return windows[:, :, np.newaxis].astype(np.float32), labels


def build() -> keras.Model:
    inputs = keras.Input((STEPS, 1))
    hidden = keras.layers.LSTM(UNITS, name='lstm')(inputs)
    return keras.Model(inputs, keras.layers.Dense(2, name='scores')(hidden))


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='lstm-timeseries-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=12)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    x_train, y_train = dataset(3000, rng)
    x_test, y_test = dataset(600, rng)
    model = build()
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    model.fit(x_train, y_train, epochs=args.epochs, batch_size=64, verbose=0)
    float_scores = np.asarray(model(x_test))

    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='fixed<16,6>')
    lstm = config['LayerName']['lstm']
    lstm['TableSize'] = 4096  # finer sigmoid / tanh tables for the gates, with 16 fraction bits
    lstm['Precision'].update(dict.fromkeys(('act_table', 'rec_table', 'cell_table'), 'fixed<18,2>'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=args.output_dir, backend=args.backend, io_type='io_parallel'
        )
    hls_model.compile()
    scores = np.asarray(hls_model.predict(x_test)).reshape(len(x_test), -1)

    results = {
        'float accuracy': float((float_scores.argmax(1) == y_test).mean()),
        'firmware accuracy': float((scores.argmax(1) == y_test).mean()),
        'same decision as float': float((scores.argmax(1) == float_scores.argmax(1)).mean()),
        'largest score difference': float(np.abs(scores - float_scores).max()),
    }
    print(f'LSTM({UNITS}) anomaly detector, {STEPS} steps, {args.backend} at fixed<16,6>, {len(x_test)} windows:')
    for name, value in results.items():
        print(f'  {name}: {value:.4f}')
    return results


if __name__ == '__main__':
    main()
