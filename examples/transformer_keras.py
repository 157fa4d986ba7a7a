"""Two small Keras 3 transformer blocks, trained for a few seconds offline and converted to firmware.

    .venv/bin/python examples/transformer_keras.py [--output-dir DIR] [--backend Vitis|oneAPI|Catapult]

* **Encoder** on generated token sequences (6 tokens of a vocabulary of 6; the class says whether
  token 1 or token 2 occurs more often, or both equally): Embedding -> MultiHeadAttention (2 heads)
  -> add & LayerNormalization -> MLP (Dense relu, Dense) -> add & LayerNormalization -> average
  pooling over the tokens -> Dense.
* **ViT-style block with a mixture of experts** on scikit-learn's 8 x 8 digits (the 8 rows are the
  tokens): a patch Dense -> LayerNormalization -> MultiHeadAttention -> add -> LayerNormalization ->
  a mixture-of-experts MLP -> add -> average pooling -> Dense. The MLP's 4 experts are one
  EinsumDense (every expert on every token); `hls4ml.nn.keras_moe.TopKRouter` (token choice: each
  token picks its top-2 experts, gates renormalised over the two, as Mixtral) gives the gates, and an
  einsum combines the experts' outputs.

Prints, per block, the accuracy of float Keras and of the firmware, how often they agree, the
largest difference of the logits and the estimated latency. No network access; about a minute on
2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

os.environ.setdefault('KERAS_BACKEND', 'tensorflow')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.nn.keras_moe import TopKRouter  # noqa: E402

SEED = 7
TOKENS, VOCABULARY, WIDTH = 6, 6, 8
EXPERTS, CHOSEN, HIDDEN = 4, 2, 16
PRECISION = 'fixed<18,8>'


def token_data(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Sequences of token ids; class 0: more 1s than 2s, 1: more 2s, 2: as many."""
    tokens = np.random.default_rng(SEED).integers(0, VOCABULARY, (count, TOKENS))
    ones, twos = (tokens == 1).sum(axis=1), (tokens == 2).sum(axis=1)
    return tokens.astype(np.int32), np.select([ones > twos, twos > ones], [0, 1], 2)


def encoder() -> keras.Model:
    layers = keras.layers
    tokens = keras.Input((TOKENS,), dtype='int32')
    x = layers.Embedding(VOCABULARY, WIDTH)(tokens)
    attended = layers.MultiHeadAttention(num_heads=2, key_dim=4, name='attention')(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, attended]))
    hidden = layers.Dense(WIDTH)(layers.Dense(16, activation='relu')(x))
    x = layers.LayerNormalization()(layers.Add()([x, hidden]))
    return keras.Model(tokens, layers.Dense(3)(layers.GlobalAveragePooling1D()(x)))


def vit_moe_block() -> keras.Model:
    layers = keras.layers
    rows = keras.Input((8, 8))
    patches = layers.Dense(HIDDEN)(rows)
    normed = layers.LayerNormalization()(patches)
    x = layers.Add()([patches, layers.MultiHeadAttention(num_heads=2, key_dim=8, name='attention')(normed, normed)])
    normed = layers.LayerNormalization()(x)
    gates = TopKRouter(EXPERTS, k=CHOSEN, renormalize=True, name='router')(normed)  # (tokens, experts)
    experts = layers.EinsumDense(
        'abc,cef->abef', output_shape=(None, EXPERTS, HIDDEN), bias_axes='ef', activation='relu', name='experts'
    )(normed)
    x = layers.Add()([x, keras.ops.einsum('abe,abef->abf', gates, experts)])
    return keras.Model(rows, layers.Dense(10)(layers.GlobalAveragePooling1D()(x)))


def train(model: keras.Model, x: np.ndarray, y: np.ndarray, epochs: int) -> None:
    keras.utils.set_random_seed(SEED)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    model.fit(x, y, epochs=epochs, batch_size=64, verbose=0)


def convert(model: keras.Model, name: str, args: argparse.Namespace):
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=PRECISION)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the 'auto' types of the chained products are capped at 'maximum'
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=os.path.join(args.output_dir, name), backend=args.backend
        )
    hls_model.compile()
    return hls_model


def compare(model: keras.Model, hls_model, x: np.ndarray, y: np.ndarray, title: str, backend: str) -> dict[str, float]:
    float_logits = model.predict(x, verbose=0)
    logits = np.asarray(hls_model.predict(x)).reshape(float_logits.shape)
    results = {
        'float accuracy': float((float_logits.argmax(1) == y).mean()),
        'firmware accuracy': float((logits.argmax(1) == y).mean()),
        'same class as float': float((logits.argmax(1) == float_logits.argmax(1)).mean()),
        'largest logit difference': float(np.abs(logits - float_logits).max()),
    }
    print(f'{title}, {backend} at {PRECISION}, {len(x)} test samples:')
    for key, value in results.items():
        print(f'  {key:26s} {value:.4f}')
    print(f'  estimated latency          {hls_model.estimate().latency_cycles} cycles')
    return results


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='transformer-keras-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=30)
    args = parser.parse_args(argv)

    tokens, labels = token_data(1200)
    model = encoder()
    train(model, tokens[:900], labels[:900], args.epochs)
    results = {
        'encoder': compare(model, convert(model, 'encoder', args), tokens[900:], labels[900:], 'Encoder', args.backend)
    }

    digits = load_digits()
    images = (digits.data / 16.0).reshape(-1, 8, 8).astype(np.float32)
    x_train, x_test, y_train, y_test = train_test_split(images, digits.target, test_size=0.3, random_state=SEED)
    block = vit_moe_block()
    train(block, x_train, y_train, args.epochs // 2)
    results['vit_moe'] = compare(
        block, convert(block, 'vit_moe', args), x_test, y_test, 'ViT block with MoE MLP', args.backend
    )
    return results


if __name__ == '__main__':
    main(sys.argv[1:])
