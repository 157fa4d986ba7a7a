"""Predict throughput of two small Keras models, run by whichever hls4ml the interpreter imports: this
project (PYTHONPATH) or the published hls4ml 1.3.0 (the peer venv).

* `attention`: EinsumDense per-head projections, the scores and the mixing by keras.ops.einsum (two
  computed tensors), the EinsumDense output projection (no softmax: that is wt-seq's part);
* `projections`: only the EinsumDense layers (a per-head projection, then the output projection),
  which hls4ml 1.3.0 converts too;
* `mha`: keras.layers.MultiHeadAttention(num_heads=2, key_dim=4) self-attention on the same tokens
  (with its softmax), which hls4ml 1.3.0 does not convert (it has HGQ2's QMultiHeadAttention only).

One JSON line: conversion + write, compile and predict times, samples per second, and the largest
difference from Keras (or the error). Used by `einsum_peer.sh`; the peer is run, never imported.

    python bench/einsum_bench.py --model attention --out-dir /tmp/einsum-bench [--n-samples 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np


def build_model(name: str):
    """Tokens (4, 8) -> query/key/value (4, 2, 4) per head -> scores (2, 4, 4) -> mixed (4, 2, 4) -> (4, 8)
    (`attention`), or tokens -> query -> out (`projections`)."""
    import keras

    layers = keras.layers
    tokens = keras.Input((4, 8), name='tokens')
    if name == 'mha':
        return _weighted(keras.Model(tokens, layers.MultiHeadAttention(num_heads=2, key_dim=4)(tokens, tokens)))
    query = layers.EinsumDense('abc,cde->abde', output_shape=(4, 2, 4), bias_axes='de', name='query')(tokens)
    mixed = query
    if name == 'attention':
        key = layers.EinsumDense('abc,cde->abde', output_shape=(4, 2, 4), bias_axes='de', name='key')(tokens)
        value = layers.EinsumDense('abc,cde->abde', output_shape=(4, 2, 4), bias_axes='de', name='value')(tokens)
        scores = keras.ops.einsum('aecd,abcd->acbe', key, query)
        mixed = keras.ops.einsum('acbe,aecd->abcd', scores, value)
    output = layers.EinsumDense('abcd,cde->abe', output_shape=(4, 8), bias_axes='e', name='out')(mixed)
    return _weighted(keras.Model(tokens, output))


def _weighted(model):
    rng = np.random.default_rng(0)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([rng.uniform(-0.5, 0.5, w.shape) for w in layer.get_weights()])
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--model', choices=('attention', 'projections', 'mha'), default='attention')
    parser.add_argument('--out-dir', default=None)
    parser.add_argument('--n-samples', type=int, default=20000)
    arguments = parser.parse_args()
    import hls4ml

    model = build_model(arguments.model)
    x = np.random.default_rng(1).uniform(-1, 1, (arguments.n_samples, 4, 8)).astype(np.float32)
    expected = model.predict(x, verbose=0, batch_size=1024).reshape(len(x), -1)
    record = {'model': arguments.model, 'hls4ml': getattr(hls4ml, '__version__', '?')}
    start = time.perf_counter()
    try:
        config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='fixed<24,12>')
        output_dir = arguments.out_dir or tempfile.mkdtemp(prefix='einsum-bench-')
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=os.path.join(output_dir, arguments.model), backend='Vitis'
        )
        hls_model.write()
    except Exception as error:  # the peer refuses some models: record why instead of a number
        print(json.dumps({**record, 'error': f'{type(error).__name__}: {error}'}))
        return
    converted = time.perf_counter()
    hls_model.compile()
    compiled = time.perf_counter()
    hls_model.predict(x[:10])
    begin = time.perf_counter()
    predicted = np.asarray(hls_model.predict(x)).reshape(len(x), -1)
    elapsed = time.perf_counter() - begin
    record |= {
        'convert_write_s': round(converted - start, 3),
        'compile_s': round(compiled - converted, 3),
        'predict_s': round(elapsed, 3),
        'samples_per_s': round(len(x) / elapsed, 1),
        'max_abs_error_vs_keras': float(np.abs(predicted - expected).max()),
    }
    print(json.dumps(record))


if __name__ == '__main__':
    main()
