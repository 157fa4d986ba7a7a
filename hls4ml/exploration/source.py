"""The model every worker converts points from: a framework-free IR graph, or the user's factory.

A Keras, PyTorch or ONNX model is parsed once, on the caller's machine, into the IR graph the
converters build (before the conversion flow) and the project dictionary of a checked conversion;
workers then need neither the framework nor the model, only hls4ml. A factory
`factory(hls_config, io_type) -> ModelGraph` is called on the workers as it is.
"""

from __future__ import annotations

import copy
import hashlib
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.api import ModelGraph
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import LAYER_KINDS

Factory = Callable[[dict[str, Any], str], ModelGraph]
FRAMEWORK_MODEL_KEYS = ('KerasModel', 'PytorchModel', 'OnnxModel')


@dataclass
class ModelSource:
    """A model to convert at many points. `graph` (the IR before the flow) and `project` (the project
    dictionary without the framework model) for a framework model; `factory` otherwise."""

    project: dict[str, Any]
    graph: Graph | None
    origin: dict[str, str]
    factory: Factory | None
    digest: str
    kinds: dict[str, str]  # layer name -> kind, to check the space and pick a precision's variables

    def convert(self, hls_config: dict[str, Any], io_type: str, output_dir: str) -> ModelGraph:
        """The converted model at one configuration, its project folder `output_dir`; nothing is written."""
        if self.factory is not None:
            hls_model = self.factory(copy.deepcopy(hls_config), io_type)
            hls_model.config['OutputDir'] = output_dir  # a compile writes into this worker's own folder
            return hls_model
        assert self.graph is not None
        config = copy.deepcopy(self.project)
        config.update({'HLSConfig': copy.deepcopy(hls_config), 'IOType': io_type, 'OutputDir': output_dir})
        return ModelGraph(config, copy.deepcopy(self.graph), self.origin)

    def check_layer(self, layer: str) -> None:
        if layer not in self.kinds:
            raise ValueError(f'space: no layer {layer!r} in the model; its layers: {", ".join(self.kinds)}')

    def variables(self, layer: str, wanted: tuple[str, ...]) -> tuple[str, ...]:
        """The typed variables of `layer` among `wanted` (a Dense has weight, bias, result; a ReLU result)."""
        self.check_layer(layer)
        present = LAYER_KINDS[self.kinds[layer]].type_defaults
        chosen = tuple(var for var in wanted if var in present)
        if not chosen:
            raise ValueError(
                f'space: layer {layer!r} ({self.kinds[layer]}) has none of the variables {", ".join(wanted)}; '
                f'its typed variables: {", ".join(present)}'
            )
        return chosen


def source_from_model(model: Any, project: dict[str, Any], hls_config: dict[str, Any]) -> ModelSource:
    """A ModelSource from a Keras / PyTorch / ONNX model, or from a factory callable.

    `project` holds the keywords of `convert_from_*` (backend, part, clock_period, io_type, ...).
    The model is converted once here with those keywords and `hls_config`, with the conversion
    guard, so a model that cannot convert fails now, naming its layers, rather than at every point."""
    import hls4ml.converters as converters

    if callable(model) and not _framework(model):
        hls_model = model(copy.deepcopy(hls_config), project.get('io_type', 'io_parallel'))
        digest = _factory_digest(model, hls_model.graph)
        return ModelSource({}, None, {}, model, digest, _kinds(hls_model.graph))
    framework = _framework(model)
    if framework is None:
        raise ValueError(
            f'explore: cannot tell the framework of a {type(model).__name__}: pass a Keras 3 model, a torch.nn.Module, '
            'an ONNX model (ModelProto or .onnx path), or a factory(hls_config, io_type) -> ModelGraph'
        )
    with tempfile.TemporaryDirectory() as scratch:
        convert = getattr(converters, f'convert_from_{framework}_model')
        checked = convert(model, hls_config=copy.deepcopy(hls_config), output_dir=scratch, **project)
    graph, origin = _parse(converters, framework, model, hls_config)
    config = {key: value for key, value in checked.config.items() if key not in FRAMEWORK_MODEL_KEYS}
    config.pop('HLSConfig', None)
    config = copy.deepcopy(dict(config))
    digest = _digest(graph, origin, {key: value for key, value in config.items() if key != 'OutputDir'})
    return ModelSource(config, graph, origin, None, digest, _kinds(graph))


def _framework(model: Any) -> str | None:
    if isinstance(model, (str, os.PathLike)) and str(model).endswith('.onnx'):
        return 'onnx'
    modules = {cls.__module__.split('.')[0] for cls in type(model).__mro__}
    for framework, module in (('keras', 'keras'), ('pytorch', 'torch'), ('onnx', 'onnx'), ('onnx', 'qonnx')):
        if module in modules:
            return framework
    return None


def _parse(converters: Any, framework: str, model: Any, hls_config: dict[str, Any]) -> tuple[Graph, dict[str, str]]:
    if framework == 'keras':
        return converters.parse_keras_model(model)
    layout = (hls_config.get('Model') or {}).get('ChannelsLastConversion', 'full')
    if framework == 'pytorch':
        return converters.parse_pytorch_model(model, hls_config['InputShape'], layout)
    return converters.parse_onnx_model(model, layout)


def _kinds(graph: Graph) -> dict[str, str]:
    return {name: str(layer.kind) for name, layer in graph.layers.items()}


def _digest(graph: Graph, *extra: Any) -> str:
    """A content hash of the graph (layers, attributes, types, weights, tensor shapes) and `extra`."""
    digest = hashlib.sha256()
    for layer in graph.layers.values():
        digest.update(_canonical((layer.name, layer.kind, layer.inputs, layer.outputs, layer.source_class)))
        digest.update(_canonical(dict(layer.attributes)))
        digest.update(_canonical({name: str(precision) for name, precision in layer.types.items()}))
        for name in sorted(layer.weights):
            values = np.ascontiguousarray(layer.weights[name])
            digest.update(_canonical((name, values.shape, str(values.dtype))) + values.tobytes())
    digest.update(_canonical({name: tensor.shape for name, tensor in graph.tensors.items()}))
    digest.update(_canonical((graph.inputs, graph.outputs, extra)))
    return digest.hexdigest()[:32]


def _factory_digest(factory: Factory, graph: Graph) -> str:
    """A factory is known by its qualified name and the graph it builds at the first point."""
    name = f'{getattr(factory, "__module__", "")}.{getattr(factory, "__qualname__", type(factory).__name__)}'
    return _digest(graph, name)


def _canonical(value: Any) -> bytes:
    """Bytes that depend only on the value (sorted keys and set members, arrays by content)."""
    return repr(_plain(value)).encode()


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return sorted((str(key), _plain(item)) for key, item in value.items())
    if isinstance(value, (set, frozenset)):
        return sorted(repr(_plain(item)) for item in value)
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return (value.shape, str(value.dtype), hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest())
    return repr(value)


_CONVERTED: OrderedDict[tuple[str, str], ModelGraph] = OrderedDict()  # this process's last conversions
_KEEP = 8
_CONVERTED_LOCK = threading.Lock()


def scratch_dir(key: str) -> str:
    """The project folder of one point in this process (a C-simulation compile writes the project first)."""
    return os.path.join(tempfile.gettempdir(), f'hls4ml-explore-{os.getpid()}', key)


def converted(source: ModelSource, key: str, hls_config: dict[str, Any], io_type: str) -> ModelGraph:
    """`source.convert(...)`, remembered per process: a point's chunks reuse one conversion (and one
    compiled C-simulation) on each worker."""
    memo_key = (source.digest, key)
    with _CONVERTED_LOCK:  # a worker of several threads
        if memo_key not in _CONVERTED:
            _CONVERTED[memo_key] = source.convert(hls_config, io_type, scratch_dir(key))
            while len(_CONVERTED) > _KEEP:
                _CONVERTED.popitem(last=False)
        _CONVERTED.move_to_end(memo_key)
        return _CONVERTED[memo_key]
