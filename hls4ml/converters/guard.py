"""The guard against silent misconversion: after conversion, the framework's own model and the numpy
emulator run a few random inputs, and a `ConversionMismatchWarning` says so when they disagree.

The rule (docs/quantization.md, "The conversion guard"):

1. Inputs: `SAMPLES` seeded random samples (fewer, down to `MIN_SAMPLES`, for models whose
   multiply-accumulates would make the emulator take more than about 0.1 s; none beyond
   `MAX_WORK`: the check is skipped). An input whose type the frontend preset (a QONNX
   quantizer) gets values on that type's grid; any other input standard normal values on a 2^-10
   grid, within +-4 (exact in float32 and in the emulator, so both see the very same numbers).
2. The emulator runs a WIDENED copy of the converted graph: every type the frontend did not preset
   gets 20 fraction bits (18 for weights) and 6 more integer bits, and table-based functions get
   `WIDE_TABLE_SIZE` entries; a Dense/Conv accumulator gets the 38 fraction bits of its products (up
   to `EXACT_ACCUMULATOR_WIDTH` bits), so it rounds nothing and runs as one integer matrix product.
   What the configured precision costs is thereby kept out: the widened model computes what the
   conversion means, and preset types (quantizers: semantics, not precision) stay as they are.
   A Softmax set to 'argmax' or 'latency' is compared as 'stable'; a skipped
   Softmax is compared both ways.
3. For each output, a sample disagrees when max |emulator - framework| > ATOL + RTOL * (largest
   |framework output|). The warning comes when more than `MISMATCH_FRACTION` of the samples
   disagree: a misconversion (a dropped scale, a lost bias, a wrong layout) moves nearly every sample,
   while the few samples where a discontinuity (argmax, top-k, a rounding step of a quantizer) falls
   between the float32 framework and the exact emulator do not raise it.

The guard never fails a conversion: if the framework model or the emulator cannot run the inputs
(an operation the emulator lacks, an input it cannot make up), the check is skipped and
`GuardReport.skipped` says why. Opt out with `check_conversion=False` on the convert functions.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.types import FixedPrecisionType, PrecisionType

SAMPLES = 16
MIN_SAMPLES = 4
WORK_BUDGET = 6_000_000  # multiply-accumulates (all samples) the widened emulator runs in about 0.1 s
MAX_WORK = 30 * WORK_BUDGET  # beyond this (about 3 s with MIN_SAMPLES) the check is skipped
SEED = 1234
INPUT_GRID_BITS = 10
INPUT_LIMIT = 4.0
WIDE_FRACTION_BITS = 20
WIDE_WEIGHT_FRACTION_BITS = 18
EXTRA_INTEGER_BITS = 6
WIDE_TABLE_SIZE = 16384
EXACT_ACCUMULATOR_KINDS = (Kind.DENSE, Kind.CONV1D, Kind.CONV2D)
EXACT_ACCUMULATOR_WIDTH = 62  # the widest accumulator the emulator's integer product takes
RTOL = 0.02
ATOL = 2.0**-10
MISMATCH_FRACTION = 0.25

FrameworkRunner = Callable[[list[np.ndarray]], list[np.ndarray]]


class ConversionMismatchWarning(UserWarning):
    """The converted model does not compute what the framework model computes, beyond what its
    precision explains: probably a misconversion (please report it with the model)."""


@dataclass(frozen=True)
class OutputCheck:
    """One output: how many samples disagree, the largest error and the scale it is measured against."""

    name: str
    disagreeing: int
    samples: int
    largest_error: float
    scale: float

    @property
    def mismatch(self) -> bool:
        return self.disagreeing > MISMATCH_FRACTION * self.samples


@dataclass
class GuardReport:
    outputs: list[OutputCheck] = field(default_factory=list)
    skipped: str = ''  # why the check did not run ('' when it ran)

    @property
    def mismatches(self) -> list[OutputCheck]:
        return [output for output in self.outputs if output.mismatch]


@dataclass(frozen=True)
class Layouts:
    """How IR tensors are laid out against the framework's: `inputs_channels_last` when the IR input is
    the framework input with its first axis moved last ('internal'), `outputs_channels_last` likewise
    for outputs (PyTorch / ONNX 'full' and 'internal' without TransposeOutputs)."""

    inputs_channels_last: bool = False
    outputs_channels_last: bool = False


@dataclass(frozen=True)
class Presets:
    """What the frontend made, taken before the config is applied and the passes run: each layer's
    kind and the types it preset (quantizers)."""

    types: dict[str, dict[str, PrecisionType]]
    kinds: dict[str, str]

    @classmethod
    def of(cls, graph: Graph) -> Presets:
        layers = graph.layers.items()
        return cls({name: dict(layer.types) for name, layer in layers}, {name: layer.kind for name, layer in layers})


def check_conversion(
    hls_model: Any, run_framework: FrameworkRunner, presets: Presets, layouts: Layouts = Layouts()
) -> GuardReport:
    """Compare the framework and the widened emulator on a few random inputs; warn on a mismatch."""
    try:
        report = _compare(hls_model, run_framework, presets, layouts)
    except Exception as error:  # the guard must never break a conversion that succeeded
        return GuardReport(skipped=f'{type(error).__name__}: {error}')
    if report.mismatches:
        warnings.warn(_message(report), ConversionMismatchWarning, stacklevel=3)
    return report


def _compare(hls_model: Any, run_framework: FrameworkRunner, presets: Presets, layouts: Layouts) -> GuardReport:
    """One OutputCheck per output (or why none could be made), without warning."""
    from hls4ml.model.interpreter import interpret

    graph: Graph = hls_model.graph
    work = sum(_multiply_accumulates(graph, layer) for layer in graph.layers.values())
    if work * MIN_SAMPLES > MAX_WORK:
        return GuardReport(skipped=f'too large for the quick check: {work} multiply-accumulates per sample')
    count = int(np.clip(WORK_BUDGET // max(work, 1), MIN_SAMPLES, SAMPLES))
    ir_inputs = [_random_input(graph, name, presets, count) for name in graph.inputs]
    framework_inputs = [_to_framework(x, layouts.inputs_channels_last) for x in ir_inputs]
    framework_outputs = run_framework(framework_inputs)
    if len(framework_outputs) != len(graph.outputs):
        return GuardReport(skipped=f'{len(framework_outputs)} framework outputs for {len(graph.outputs)} IR outputs')
    wide = SimpleNamespace(graph=widened(graph, presets), backend=hls_model.backend)
    emulated, _ = interpret(wide, ir_inputs if len(ir_inputs) > 1 else ir_inputs[0])
    skipped_softmax = any(kind == Kind.SOFTMAX and name not in graph.layers for name, kind in presets.kinds.items())
    report = GuardReport()
    for name, mine, theirs in zip(graph.outputs, emulated, framework_outputs, strict=True):
        expected = _to_ir(np.asarray(theirs, dtype=np.float64), graph.tensors[name].shape, layouts)
        candidates = [mine.to_double()] + ([_softmax(mine.to_double())] if skipped_softmax else [])
        report.outputs.append(min((_output_check(name, c, expected) for c in candidates), key=_badness))
    return report


def _badness(check: OutputCheck) -> tuple[int, float]:
    return check.disagreeing, check.largest_error


def _output_check(name: str, emulated: np.ndarray, expected: np.ndarray) -> OutputCheck:
    errors = np.abs(emulated - expected).max(axis=1)
    scale = float(np.abs(expected).max(initial=0.0))
    disagreeing = int((~(errors <= ATOL + RTOL * scale)).sum())  # NaN counts as disagreeing
    return OutputCheck(name, disagreeing, len(errors), float(np.nan_to_num(errors.max(), nan=np.inf)), scale)


def _message(report: GuardReport) -> str:
    parts = [
        f"output '{check.name}': {check.disagreeing} of {check.samples} random samples differ by more than "
        f'{RTOL:.0%} of the largest output magnitude {check.scale:.4g} (largest difference {check.largest_error:.4g})'
        for check in report.mismatches
    ]
    return (
        'the converted model does not compute what the framework model computes, even with every type '
        'widened: ' + '; '.join(parts) + '. This is probably a misconversion: please report it with the '
        'model (docs/quantization.md, "The conversion guard"); check_conversion=False silences this check.'
    )


def _multiply_accumulates(graph: Graph, layer: Layer) -> int:
    """About what one sample costs the emulator in `layer`: each output element reads one weight column
    (Dense, convolutions), else one value."""
    size = graph.tensors[layer.outputs[0]].size
    weight = layer.weights.get('weight')
    return size * (weight.size // weight.shape[-1] if weight is not None and weight.ndim else 1)


# ---- inputs and layouts ---------------------------------------------------------------------------
def _random_input(graph: Graph, name: str, presets: Presets, count: int = SAMPLES) -> np.ndarray:
    shape = graph.tensors[name].shape
    rng = np.random.default_rng(SEED + graph.inputs.index(name))
    preset = presets.types.get(graph.producer(name).name, {}).get('result')
    if isinstance(preset, FixedPrecisionType):
        raw_low, raw_high = _raw_range(preset)
        lsb = 2.0 ** (preset.integer - preset.width)
        return rng.integers(raw_low, raw_high + 1, size=(count, *shape)).astype(np.float64) * lsb
    grid = 2.0**INPUT_GRID_BITS
    values = np.round(rng.standard_normal((count, *shape)) * grid) / grid
    return np.clip(values, -INPUT_LIMIT, INPUT_LIMIT)


def _raw_range(precision: FixedPrecisionType) -> tuple[int, int]:
    """Raw integers of the type, kept within what float32 holds exactly (24 bits)."""
    bits = min(precision.width, 24)
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if precision.signed else (0, 2**bits - 1)


def _to_framework(x: np.ndarray, channels_last: bool) -> np.ndarray:
    """The IR input in the framework's layout (channels last -> first when the IR moved them)."""
    return np.moveaxis(x, -1, 1) if channels_last and x.ndim > 2 else x


def _to_ir(values: np.ndarray, shape: tuple[int, ...], layouts: Layouts) -> np.ndarray:
    """A framework output (batch first) in the IR output's layout, one flat row per sample."""
    if layouts.outputs_channels_last and values.ndim > 2:
        values = np.moveaxis(values, 1, -1)
    return values.reshape(len(values), -1)


def _softmax(values: np.ndarray) -> np.ndarray:
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


# ---- the widened graph ----------------------------------------------------------------------------
def widened(graph: Graph, presets: Presets) -> Graph:
    """A copy of `graph` whose types the frontend did not preset are widened (see the module docstring)."""
    wide = _copy(graph)
    for layer in wide.layers.values():
        preset = presets.types.get(layer.name, {})
        for var, precision in layer.types.items():
            if isinstance(precision, FixedPrecisionType) and preset.get(var) != precision:
                layer.types[var] = _wide_type(precision, layer.weights.get(_weight_name(var)))
        _exact_accumulator(layer, preset)
        if 'table_size' in layer.attributes:
            layer.attributes['table_size'] = max(layer.attributes['table_size'], WIDE_TABLE_SIZE)
        if layer.kind == Kind.SOFTMAX:  # argmax and latency are configured approximations of softmax
            layer.attributes['implementation'] = 'stable'
    return wide


def _exact_accumulator(layer: Layer, preset: dict) -> None:
    """A widened Dense/Conv accumulator keeps every product bit (widened data times widened weights):
    nothing is rounded before the result type, and the emulator runs the layer as one matrix product
    instead of rounding each product on its own (`reference.integer_mac`)."""
    accum = layer.types.get('accum')
    if layer.kind not in EXACT_ACCUMULATOR_KINDS or not isinstance(accum, FixedPrecisionType):
        return
    if preset.get('accum') == accum:  # a quantizer's accumulator: semantics, kept
        return
    fraction = WIDE_FRACTION_BITS + WIDE_WEIGHT_FRACTION_BITS
    if accum.integer + fraction <= EXACT_ACCUMULATOR_WIDTH:
        layer.types['accum'] = FixedPrecisionType(accum.integer + fraction, accum.integer, True)


def _copy(graph: Graph) -> Graph:
    """A copy whose layers' types and attributes can change (weights are shared: nothing writes them)."""
    copied = Graph()
    copied.layers = {
        name: dataclasses.replace(layer, attributes=dict(layer.attributes), types=dict(layer.types))
        for name, layer in graph.layers.items()
    }
    copied.tensors = {name: dataclasses.replace(tensor) for name, tensor in graph.tensors.items()}
    copied.inputs, copied.outputs = list(graph.inputs), list(graph.outputs)
    return copied


def _weight_name(var: str) -> str:
    return {'param': 'alpha', 'label': 'labels'}.get(var, var)


def _wide_type(precision: FixedPrecisionType, values: np.ndarray | None) -> FixedPrecisionType:
    """Signed, 6 more integer bits (or what the weights need), 20 fraction bits (18 for weights)."""
    integer = max(precision.integer, 2) + EXTRA_INTEGER_BITS
    fraction = WIDE_FRACTION_BITS
    if values is not None and values.size:
        largest = float(np.abs(values).max())
        integer = max(int(np.floor(np.log2(largest))) + 2, 1) if largest > 0 else 1
        fraction = WIDE_WEIGHT_FRACTION_BITS
    return FixedPrecisionType(integer + fraction, integer, True)


# ---- the frameworks -------------------------------------------------------------------------------
def keras_runner(model: Any) -> FrameworkRunner:
    """Calls the model; a model with channels-first layers runs through `predict` instead: TensorFlow's eager
    call of such a model can compute something else (seen: a 1x1 Conv2D after a MaxPooling2D, channels first,
    0.75 off), while `predict` agrees with the model's channels-last twin."""
    channels_first = any(getattr(layer, 'data_format', '') == 'channels_first' for layer in model.layers)

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        import keras

        feed = [x.astype(np.float32) for x in inputs]
        if channels_first:
            outputs = model.predict(feed if len(feed) > 1 else feed[0], verbose=0)
        else:
            outputs = model(feed if len(feed) > 1 else feed[0], training=False)
        return [np.asarray(keras.ops.convert_to_numpy(output)) for output in _flat(outputs)]

    return run


def pytorch_runner(model: Any) -> FrameworkRunner:
    """Runs the module in eval mode without gradients; every submodule's mode is restored afterwards."""

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        import torch

        modes = {module: module.training for module in model.modules()}
        model.eval()
        try:
            with torch.no_grad():
                outputs = model(*[torch.from_numpy(x.astype(np.float32)) for x in inputs])
        finally:
            for module, training in modes.items():
                module.training = training
        return [output.detach().cpu().double().numpy() for output in _flat(outputs)]

    return run


def _flat(outputs: Any) -> list[Any]:
    if isinstance(outputs, dict):
        return [value for item in outputs.values() for value in _flat(item)]
    if isinstance(outputs, Sequence) and not hasattr(outputs, 'shape'):
        return [value for item in outputs for value in _flat(item)]
    return [outputs]


def onnx_runner(model: Any) -> FrameworkRunner:
    """onnxruntime for plain ONNX, qonnx's executor when the graph has QONNX operations; a batch axis
    that is not a fixed size is set to the number of samples (qonnx checks shapes exactly), a fixed one
    gets chunks of its size."""

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        from hls4ml.converters.onnx.model import load_model, prepare

        wrapper = load_model(model)
        prepare(wrapper)  # QONNX operations in the domain qonnx executes
        initializers = {initializer.name for initializer in wrapper.graph.initializer}
        names = [tensor.name for tensor in wrapper.graph.input if tensor.name not in initializers]
        count = len(inputs[0])
        size = wrapper.graph.input[0].type.tensor_type.shape.dim[0].dim_value  # 0: symbolic (or written as 0)
        if size <= 0:
            size = _fix_batch(wrapper, names, count)
        execute = _qonnx_executor(wrapper) if _has_custom_ops(wrapper) else _ort_executor(wrapper)
        chunks = [_chunk(inputs, start, size) for start in range(0, count, size)]
        rows = [execute(dict(zip(names, chunk, strict=True))) for chunk in chunks]
        return [np.concatenate([row[index] for row in rows])[:count] for index in range(len(rows[0]))]

    return run


def _fix_batch(wrapper: Any, names: list[str], size: int) -> int:
    """Set the first axis of the data inputs (`names`) and of the outputs to `size`."""
    inputs = [tensor for tensor in wrapper.graph.input if tensor.name in names]
    for tensor in [*inputs, *wrapper.graph.output]:
        dims = tensor.type.tensor_type.shape.dim
        if dims:
            dims[0].dim_value = size
    return size


def _chunk(inputs: list[np.ndarray], start: int, size: int) -> list[np.ndarray]:
    chunk = [x[start : start + size] for x in inputs]
    return [np.concatenate([x, np.zeros((size - len(x), *x.shape[1:]), x.dtype)]) for x in chunk]


def _has_custom_ops(wrapper: Any) -> bool:
    return any(node.domain not in ('', 'ai.onnx') for node in wrapper.graph.node)


def _ort_executor(wrapper: Any) -> Callable[[dict[str, np.ndarray]], list[np.ndarray]]:
    import onnxruntime

    session = onnxruntime.InferenceSession(wrapper.model.SerializeToString(), providers=['CPUExecutionProvider'])

    def execute(feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        return list(session.run(None, {name: x.astype(np.float32) for name, x in feed.items()}))

    return execute


def _qonnx_executor(wrapper: Any) -> Callable[[dict[str, np.ndarray]], list[np.ndarray]]:
    from qonnx.core.onnx_exec import execute_onnx
    from qonnx.transformation.infer_shapes import InferShapes

    wrapper = wrapper.transform(InferShapes())  # qonnx executes shape-annotated graphs only
    outputs = [tensor.name for tensor in wrapper.graph.output]

    def execute(feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        results = execute_onnx(wrapper, {name: x.astype(np.float32) for name, x in feed.items()})
        return [np.asarray(results[name]) for name in outputs]

    return execute
