"""hls4ml 1.x's example-model helpers: `fetch_example_list()` and `fetch_example_model(name)` read the public
example-models repository (github.com/fastmachinelearning/example-models), so they need the network; without
it they raise a ConnectionError that says so and what to do instead."""

from __future__ import annotations

import json
import pprint
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from hls4ml.converters.config import create_config

REPOSITORY = 'https://github.com/fastmachinelearning/example-models'
RAW_FILES = 'https://raw.githubusercontent.com/fastmachinelearning/example-models/master'
TIMEOUT_SECONDS = 20
# file suffix -> (folder in the repository, the config key naming the model file)
MODEL_KINDS = {
    '.json': ('keras', 'KerasJson'),
    '.h5': ('keras', 'KerasH5'),
    '.keras': ('keras', 'KerasModel'),
    '.onnx': ('onnx', 'OnnxModel'),
    '.pt': ('pytorch', 'PytorchModel'),
}


def _read(url: str, what: str) -> bytes:
    """The bytes at `url`; a ConnectionError naming `what` when the network (or the file) is not there."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 (a fixed https URL)
            return response.read()
    except (urllib.error.URLError, OSError) as error:
        raise ConnectionError(
            f'{what} needs the network: it downloads {url} from {REPOSITORY}, which failed ({error}). '
            'On a machine without internet access, download the model files elsewhere and convert them with '
            'hls4ml.converters.convert_from_<framework>_model or convert_from_config.'
        ) from None


def fetch_example_list() -> dict[str, Any]:
    """Print (and return) the models the example-models repository offers, by framework."""
    available = json.loads(_read(f'{RAW_FILES}/available_models.json', 'fetch_example_list()'))
    pprint.PrettyPrinter(indent=4).pprint(available)
    return available


def fetch_example_model(model_name: str, backend: str = 'Vivado') -> dict[str, Any]:
    """Download the example model `model_name` (e.g. 'KERAS_3layer.json'; a Keras JSON brings its
    '_weights.h5') into the working directory and return a configuration for `convert_from_config`: the
    repository's own config file for it when there is one, else a default one (fixed<16,6>, reuse factor 1)."""
    suffix = Path(model_name).suffix
    if suffix not in MODEL_KINDS or Path(model_name).name != model_name:
        raise ValueError(
            f'fetch_example_model: {model_name!r} is not an example model file name; names end in '
            f'{", ".join(MODEL_KINDS)} (fetch_example_list() lists them)'
        )
    folder, key = MODEL_KINDS[suffix]
    what = f'fetch_example_model({model_name!r})'
    Path(model_name).write_bytes(_read(f'{RAW_FILES}/{folder}/{model_name}', what))
    config = _example_config(model_name, backend, what)
    config[key] = model_name
    if suffix == '.json':
        weights = f'{Path(model_name).stem}_weights.h5'
        Path(weights).write_bytes(_read(f'{RAW_FILES}/{folder}/{weights}', what))
        config['KerasH5'] = weights
    return config


def _example_config(model_name: str, backend: str, what: str) -> dict[str, Any]:
    """The repository's config file for the model, or a default configuration when it has none."""
    try:
        text = _read(f'{RAW_FILES}/config-files/{Path(model_name).stem}_config.yml', what)
    except ConnectionError:
        config = create_config(backend=backend)
        config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
        return config
    return dict(yaml.safe_load(text))
