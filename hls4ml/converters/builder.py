"""Channels-first operations -> IR layers: the part the PyTorch and ONNX frontends share.

PyTorch and ONNX describe tensors channels first (`(C, H, W)` without the batch axis); the IR and
the kernels are channels last (`(H, W, C)`), as in Keras. A frontend walks its graph and calls one
`GraphBuilder` method per operation with the framework's own shapes, weights and axes; the builder
decides the layout of every IR tensor and inserts a Transpose only where an operation needs another
layout than its input has. Each `Value` remembers how its IR tensor is laid out: IR axis `i` holds
framework axis `perm[i]`.

* Convolutions and pooling want channels last; reshapes and flattens want the framework's order (a
  flatten of `(C, H, W)` is channel-major), so a channels-last tensor is transposed back first. A
  transpose that only moves axes of size 1 is a Reshape (no data moves).
* Element-wise operations, batch normalization and concatenation work in whatever layout their
  input has (constants and axes are permuted to match).
* `channels_last_conversion` (hls4ml 1.x): 'full' takes inputs channels first, 'internal' takes
  rank >= 2 inputs already channels last, 'off' converts nothing (so no convolution or pooling).
  Outputs stay in their IR layout (channels last after a convolution) unless `transpose_outputs`
  asks for the framework's layout; with 'off' they are in the framework's layout anyway.

Quantizers (QONNX `Quant`) become `quantize()`: a linear activation with a preset result type, folded
into its producer by `finish()` when that producer rounds its result exactly once (see FOLDABLE).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.conv_kernels import block_diagonal, dilated, transposed_input, transposed_kernel
from hls4ml.converters.pointwise import convolution_rows, pointwise_dense
from hls4ml.model.einsum import EinsumError, plan, split_equation
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import (
    ACTIVATIONS,
    CONV_OF_RANK,
    CONVOLUTIONS,
    DEPTHWISE_CONV_OF_RANK,
    GLOBAL_POOLING_OF_RANK,
    HARD_ACTIVATIONS,
    LAYER_KINDS,
    PARAMETRIZED_ACTIVATIONS,
    POOLING_OF_RANK,
    ROUTER_OUTPUTS,
    SOFT_TOPK_MODES,
    TOPK_OUTPUTS,
    ZERO_PADDING_OF_RANK,
    Kind,
    KindRecord,
)
from hls4ml.model.names import NameTable
from hls4ml.model.reference.soft_router import check_soft_router
from hls4ml.model.reference.soft_topk import SOFT_TOPK_P_CHOICES, check_strength, soft_topk_power
from hls4ml.model.reference.soft_topk_cubic import CUBIC_POWER
from hls4ml.model.shape_rules import window_output
from hls4ml.model.types import IntegerPrecisionType, PrecisionType

CHANNELS_LAST_MODES = ('full', 'internal', 'off')
AXES = {1: ('width',), 2: ('height', 'width')}
PAD_NAMES = {'height': ('pad_top', 'pad_bottom'), 'width': ('pad_left', 'pad_right')}
MAX_TRANSPOSE_RANK = 3  # the Transpose kernels move 2-D and 3-D tensors
MERGE_OPS = ('add', 'subtract', 'multiply', 'average', 'maximum', 'minimum')
# kinds whose result is their exact value cast once to the result type: a quantizer right after one
# of them (and read by nothing else) becomes that layer's result type
FOLDABLE = (Kind.INPUT, Kind.DENSE, *CONVOLUTIONS, Kind.MERGE, Kind.CONCATENATE)
FOLDABLE_ACTIVATIONS = ('relu', 'linear', 'bipolar')


class UnsupportedOperation(ValueError):
    """One framework operation (or one of its settings) that cannot be converted."""


class ConversionError(ValueError):
    """The model cannot be converted; the message lists every reason found."""


@dataclass(frozen=True)
class Origin:
    """Where an operation comes from, for names, messages and config look-ups."""

    name: str  # the framework's node or module name
    op: str  # its class or op type ('Conv2d', 'Gemm', ...)
    where: str = ''  # extra context for messages ('node 3', 'module features.0')

    def __str__(self) -> str:
        place = f', {self.where}' if self.where else ''
        return f"'{self.name}' ({self.op}{place})"


@dataclass(frozen=True)
class Value:
    """A framework tensor: its IR tensor, its framework shape and how the IR tensor is laid out."""

    tensor: str
    shape: tuple[int, ...]  # framework shape, channels first, without the batch axis
    perm: tuple[int, ...]  # IR axis i holds framework axis perm[i]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def ir_shape(self) -> tuple[int, ...]:
        return tuple(self.shape[axis] for axis in self.perm)

    @property
    def identity(self) -> bool:
        return self.perm == tuple(range(self.rank))


def channels_last_perm(rank: int) -> tuple[int, ...]:
    """(C, H, W) -> (H, W, C): the IR layout of a channels-first tensor of `rank` axes."""
    return tuple(range(1, rank)) + (0,) if rank >= 2 else tuple(range(rank))


def _same_order(value: Value, perm: tuple[int, ...]) -> bool:
    """True when laying `value` out as `perm` moves only axes of size 1 (the data order stays)."""
    position = inverse(value.perm)
    moves = [position[axis] for axis in perm if value.shape[axis] != 1]
    return moves == sorted(moves)


def _ir_letters(letters: str, value: Value) -> str:
    """An operand's einsum letters in its IR axis order (IR axis i is framework axis perm[i])."""
    if len(letters) != value.rank:
        raise EinsumError(f'operand {letters!r} names {len(letters)} axes, the tensor has shape {value.shape}')
    return ''.join(letters[axis] for axis in value.perm)


def inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    result = [0] * len(perm)
    for index, axis in enumerate(perm):
        result[axis] = index
    return tuple(result)


class GraphBuilder:
    """Builds an IR graph from channels-first operations; see the module docstring."""

    def __init__(self, channels_last_conversion: str = 'full', transpose_outputs: bool = False) -> None:
        if channels_last_conversion not in CHANNELS_LAST_MODES:
            raise ValueError(
                f'channels_last_conversion must be one of {", ".join(CHANNELS_LAST_MODES)}, '
                f'got {channels_last_conversion!r}'
            )
        self.mode = channels_last_conversion
        self.transpose_outputs = bool(transpose_outputs)
        self.graph = Graph()
        self.names = NameTable()
        self.origin: dict[str, str] = {}  # IR layer -> framework name, for LayerName config entries
        self._layouts: dict[tuple[str, tuple[int, ...]], str] = {}  # (tensor, IR axis order) -> laid-out tensor
        self._quantizers: list[str] = []

    # ---- graph ends -----------------------------------------------------------------------------
    def input(self, origin: Origin, shape: tuple[int, ...], precision: PrecisionType | None = None) -> Value:
        shape = tuple(int(dim) for dim in shape)
        if not shape or any(dim < 1 for dim in shape):
            raise UnsupportedOperation(f'input {origin}: every dimension must be a positive size, got {shape}')
        perm = channels_last_perm(len(shape)) if self.mode == 'internal' else tuple(range(len(shape)))
        ir_shape = tuple(shape[axis] for axis in perm)
        name = self._emit(origin, Kind.INPUT, [], shape=ir_shape)
        if precision is not None:
            self.graph.layers[name].types['result'] = precision
        self.graph.inputs.append(name)
        return Value(name, shape, perm)

    def output(self, value: Value, origin: Origin) -> None:
        """Mark `value` as a model output: in framework order with `transpose_outputs` (or 'off'),
        else channels last (for rank >= 2: the first framework axis moved to the end)."""
        if self.mode == 'off' or self.transpose_outputs:
            value = self.layout(value, tuple(range(value.rank)), origin)
        else:
            value = self.layout(value, channels_last_perm(value.rank), origin)
        self.graph.outputs.append(value.tensor)

    def finish(self) -> tuple[Graph, dict[str, str]]:
        self._fold_quantizers()
        self._drop_unread()
        if not self.graph.outputs:
            raise ConversionError('the model has no outputs')
        return self.graph, self.origin

    # ---- layouts --------------------------------------------------------------------------------
    def layout(self, value: Value, perm: tuple[int, ...], origin: Origin) -> Value:
        """`value` with its IR tensor laid out as `perm` (a Transpose, or a Reshape when only axes of
        size 1 move); made once per tensor and layout."""
        if value.perm == perm:
            return value
        position = inverse(value.perm)
        moves = tuple(position[axis] for axis in perm)
        key = (value.tensor, moves)  # by IR axes: views of one tensor (transpose()) share the key only if equal
        if key not in self._layouts:
            target = tuple(value.shape[axis] for axis in perm)
            name = f'{origin.name}_transpose'
            if _same_order(value, perm):
                self._layouts[key] = self._emit(origin, Kind.RESHAPE, [value.tensor], name=name, target_shape=target)
            elif value.rank > MAX_TRANSPOSE_RANK:
                raise UnsupportedOperation(
                    f'{origin}: needs its {value.rank}-D input {value.shape} in another axis order, but transposes '
                    f'of more than {MAX_TRANSPOSE_RANK} axes are not supported'
                )
            else:
                self._layouts[key] = self._emit(origin, Kind.TRANSPOSE, [value.tensor], name=name, perm=moves)
        return Value(self._layouts[key], value.shape, perm)

    def channels_last(self, value: Value, origin: Origin) -> Value:
        if self.mode == 'off':
            raise UnsupportedOperation(
                f"{origin}: needs channels-last tensors, but channels_last_conversion is 'off'; "
                "use 'full' (inputs channels first) or 'internal' (inputs already channels last)"
            )
        return self.layout(value, channels_last_perm(value.rank), origin)

    def framework_order(self, value: Value, origin: Origin) -> Value:
        return self.layout(value, tuple(range(value.rank)), origin)

    def per_element(self, value: Value, constant: np.ndarray | float, origin: Origin) -> np.ndarray:
        """A constant broadcast to the framework shape, laid out like the IR tensor, flattened."""
        constant = np.asarray(constant, dtype=np.float64)
        try:
            full = np.broadcast_to(constant, value.shape)
        except ValueError as error:
            raise UnsupportedOperation(
                f'{origin}: a constant of shape {constant.shape} does not broadcast to the tensor shape {value.shape}'
            ) from error
        return np.transpose(full, value.perm).reshape(-1).copy()

    # ---- matrix products ------------------------------------------------------------------------
    def dense(self, origin: Origin, x: Value, kernel: np.ndarray, biases: np.ndarray | None, **types: Any) -> Value:
        """`x @ kernel + biases` on a vector; `kernel` is (n_in, n_out). `types` preset precisions
        (weight=, bias=, ...) that the config keeps unless it names another type."""
        weight = np.asarray(kernel, dtype=np.float64)
        if weight.ndim != 2 or weight.shape[0] != x.shape[-1]:
            raise UnsupportedOperation(f'{origin}: weights of shape {weight.shape} do not fit inputs of {x.shape}')
        n_out = weight.shape[1]
        bias = np.zeros(n_out) if biases is None else np.asarray(biases, dtype=np.float64).reshape(-1)
        if bias.shape != (n_out,):
            raise UnsupportedOperation(f'{origin}: a bias of shape {bias.shape} does not fit {n_out} outputs')
        if x.rank > 1:
            return self._dense_rows(origin, x, weight, bias, types)
        name = self._emit(
            origin,
            Kind.DENSE,
            [x.tensor],
            types=types,
            weights={'weight': weight, 'bias': bias},
            n_in=x.shape[0],
            n_out=n_out,
        )
        return Value(name, (n_out,), (0,))

    def einsum(self, origin: Origin, equation: str, a: Value, b: Value) -> Value:
        """The product of two tensors, `equation` over framework axes without the batch axis
        ('qd,kd->qk'); the operands' IR layouts are folded into the IR equation (no transposes), the
        output is in framework order."""
        try:
            first, second, output = split_equation(equation)
            ir_equation = f'{_ir_letters(first, a)},{_ir_letters(second, b)}->{output}'
            shape = plan(ir_equation, a.ir_shape, b.ir_shape).output_shape
        except EinsumError as error:
            raise UnsupportedOperation(f'{origin}: {error}') from None
        name = self._emit(origin, Kind.EINSUM, [a.tensor, b.tensor], equation=ir_equation)
        return Value(name, shape, tuple(range(len(shape))))

    def einsum_dense(self, origin: Origin, equation: str, x: Value, kernel: np.ndarray, bias: np.ndarray) -> Value:
        """`einsum(equation, x, kernel) + bias` with a constant kernel, `equation` over x's framework axes
        without the batch axis; `bias` broadcasts to the output (the IR EinsumDense)."""
        x = self.framework_order(x, origin)
        kernel = np.asarray(kernel, dtype=np.float64)
        try:
            output_shape = plan(equation, x.shape, kernel.shape).output_shape
            full_bias = np.broadcast_to(np.asarray(bias, dtype=np.float64), output_shape)
        except (EinsumError, ValueError) as error:
            raise UnsupportedOperation(f'{origin}: {error}') from None
        weights = {'weight': kernel, 'bias': np.ascontiguousarray(full_bias).reshape(-1)}
        attributes: dict[str, Any] = {'equation': equation, 'kernel_shape': kernel.shape, 'n_out': full_bias.size}
        name = self._emit(origin, Kind.EINSUM_DENSE, [x.tensor], weights=weights, **attributes)
        return Value(name, tuple(output_shape), tuple(range(len(output_shape))))

    def _dense_rows(
        self, origin: Origin, x: Value, weight: np.ndarray, bias: np.ndarray, types: dict[str, Any]
    ) -> Value:
        """The dense layer along the last framework axis: a pointwise convolution over the rows in
        framework order (`converters/pointwise.py`), the rows flattened first when there are 3 or more."""
        x = self.framework_order(x, origin)
        rows = x.shape[:-1]
        flat_rows = convolution_rows(rows)
        if flat_rows != rows:
            x = self.reshape(Origin(f'{origin.name}_rows', origin.op, origin.where), x, (*flat_rows, x.shape[-1]))
        kind, weights, attributes = pointwise_dense(flat_rows, weight, bias)
        name = self._emit(origin, kind, [x.tensor], types=types, weights=weights, **attributes)
        result = Value(name, (*flat_rows, weight.shape[1]), tuple(range(len(flat_rows) + 1)))
        if flat_rows != rows:
            result = self.reshape(
                Origin(f'{origin.name}_unrows', origin.op, origin.where), result, (*rows, weight.shape[1])
            )
        return result

    def recurrent(
        self, origin: Origin, x: Value, kind: KindRecord, attributes: dict[str, Any], states: tuple[Value, ...] = ()
    ) -> Value:
        """A SimpleRNN, LSTM or GRU over an (n_timesteps, n_features) input; `attributes` with its
        'weights' as `converters.recurrent_parts.attributes` makes them (Keras' layout and gate order).
        `states`: the initial h (and c), (n_out,) each, read instead of zeros."""
        if x.rank != 2:
            raise UnsupportedOperation(f'{origin}: expects (steps, features) inputs, got shape {x.shape}')
        x = self.framework_order(x, origin)
        values = dict(attributes, **({'initial_state': True} if states else {}))
        weights = values.pop('weights')
        inputs = [x.tensor, *(self.framework_order(state, origin).tensor for state in states)]
        name = self._emit(origin, kind, inputs, weights=weights, **values)
        shape = self.graph.tensors[name].shape
        return Value(name, shape, tuple(range(len(shape))))

    def conv(
        self,
        origin: Origin,
        x: Value,
        kernel: np.ndarray,
        biases: np.ndarray | None,
        strides: tuple[int, ...],
        pads: list[tuple[int, int]],
        dilations: tuple[int, ...] | None = None,
        groups: int = 1,
        **types: Any,
    ) -> Value:
        """Convolution with a (out, in / groups, *window) kernel; `pads` are (before, after) per axis."""
        weight = np.asarray(kernel, dtype=np.float64)
        rank = weight.ndim - 2
        if rank not in AXES:
            raise UnsupportedOperation(f'{origin}: {rank}-D convolutions are not supported (1-D and 2-D)')
        self._check_spatial(origin, x, rank)
        weight = dilated(weight, tuple(dilations or (1,) * rank))  # zeros between the taps
        channels, filters, window = x.shape[0], weight.shape[0], tuple(weight.shape[2:])
        bias = np.zeros(filters) if biases is None else np.asarray(biases, dtype=np.float64).reshape(-1)
        if groups == channels == filters and weight.shape[1] == 1:
            kind, ir_kernel = DEPTHWISE_CONV_OF_RANK[rank], np.moveaxis(weight[:, 0], 0, -1)  # (*window, channels)
        elif weight.shape[1] * groups == channels and filters % groups == 0:  # grouped: zeros between the groups
            weight = block_diagonal(weight, groups, channels)
            kind, ir_kernel = CONV_OF_RANK[rank], np.moveaxis(weight, (0, 1), (-1, -2))  # (*window, in, out)
        else:
            raise UnsupportedOperation(
                f'{origin}: a kernel of shape {weight.shape} with groups={groups} does not fit {channels} input '
                f'and {filters} output channels'
            )
        x = self.channels_last(x, origin)
        attributes = self._window(origin, x, window, strides, pads)
        attributes.update({f'filt_{axis}': length for axis, length in zip(AXES[rank], window, strict=True)})
        attributes['n_filt'] = filters
        name = self._emit(
            origin, kind, [x.tensor], types=types, weights={'weight': ir_kernel.copy(), 'bias': bias}, **attributes
        )
        return self._spatial_value(name, filters, attributes, rank)

    def conv_transpose(
        self,
        origin: Origin,
        x: Value,
        kernel: np.ndarray,
        biases: np.ndarray | None,
        strides: tuple[int, ...],
        pads: list[tuple[int, int]],
        output_padding: tuple[int, ...],
        dilations: tuple[int, ...] | None = None,
        groups: int = 1,
        **types: Any,
    ) -> Value:
        """Transposed convolution with an (in, out / groups, *window) kernel: zeros inserted into the
        input (a Gather `<name>_spread`), then a plain stride-1 convolution with the flipped kernel."""
        weight = np.asarray(kernel, dtype=np.float64)
        rank = weight.ndim - 2
        self._check_spatial(origin, x, rank)
        weight = dilated(weight, tuple(dilations or (1,) * rank))
        if weight.shape[0] != x.shape[0] or x.shape[0] % groups:
            raise UnsupportedOperation(f'{origin}: a kernel of shape {weight.shape} does not fit {x.shape[0]} channels')
        window = tuple(weight.shape[2:])
        x = self.channels_last(x, origin)  # the spread keeps it: the convolution needs no transpose
        try:
            table = transposed_input(self.positions(x), strides, window, pads, output_padding)
        except ValueError as error:
            raise UnsupportedOperation(f'{origin}: {error}') from error
        spread = self.gather(Origin(f'{origin.name}_spread', origin.op, origin.where), x, table)
        plain = transposed_kernel(weight, groups)
        return self.conv(origin, spread, plain, biases, (1,) * rank, [(0, 0)] * rank, **types)

    # ---- pooling --------------------------------------------------------------------------------
    def pool(
        self,
        origin: Origin,
        x: Value,
        op: str,
        window: tuple[int, ...],
        strides: tuple[int, ...],
        pads: list[tuple[int, int]],
        count_include_pad: bool = False,
        ceil_mode: bool = False,
        **types: Any,
    ) -> Value:
        """Max or average pooling. Padded positions are skipped (max: -inf, average: not counted)
        unless `count_include_pad`, which pads with zeros first (PyTorch's and ONNX's default).
        `types` preset the layer's precisions (`accum`, `result`), as for `dense`."""
        rank = len(window)
        self._check_spatial(origin, x, rank)
        if ceil_mode:
            for size, length, stride, (before, after) in zip(x.shape[1:], window, strides, pads, strict=True):
                floor_size = (size + before + after - length) // stride + 1
                if math.ceil((size + before + after - length) / stride) + 1 != floor_size:
                    raise UnsupportedOperation(f'{origin}: ceil_mode=True changes the output size; it is not supported')
        x = self.channels_last(x, origin)
        if op == 'average' and count_include_pad and any(before or after for before, after in pads):
            x = self.zero_pad(Origin(f'{origin.name}_pad', origin.op, origin.where), x, pads)
            pads = [(0, 0)] * rank
        attributes = self._window(origin, x, window, strides, pads)
        attributes.update({f'pool_{axis}': length for axis, length in zip(AXES[rank], window, strict=True)})
        attributes['pool_op'] = op
        name = self._emit(origin, POOLING_OF_RANK[rank], [x.tensor], types=types, **attributes)
        return self._spatial_value(name, x.shape[0], attributes, rank)

    def global_pool(self, origin: Origin, x: Value, op: str, keepdims: bool, **types: Any) -> Value:
        rank = x.rank - 1
        self._check_spatial(origin, x, rank)
        x = self.channels_last(x, origin)
        attributes: dict[str, Any] = {f'in_{axis}': size for axis, size in zip(AXES[rank], x.shape[1:], strict=True)}
        attributes.update(n_chan=x.shape[0], keepdims=keepdims, pool_op=op)
        name = self._emit(origin, GLOBAL_POOLING_OF_RANK[rank], [x.tensor], types=types, **attributes)
        if keepdims:
            return Value(name, (x.shape[0],) + (1,) * rank, channels_last_perm(rank + 1))
        return Value(name, (x.shape[0],), (0,))

    def upsample(self, origin: Origin, x: Value, factors: tuple[int, ...]) -> Value:
        """Nearest-neighbour upsampling of a (C, *spatial) tensor by integer factors (a Resize)."""
        rank = len(factors)
        self._check_spatial(origin, x, rank)
        x = self.channels_last(x, origin)
        attributes: dict[str, Any] = {'n_chan': x.shape[0], 'algorithm': 'nearest'}
        for axis, size, factor in zip(AXES[rank], x.shape[1:], factors, strict=True):
            attributes[f'in_{axis}'], attributes[f'{axis}_factor'], attributes[f'out_{axis}'] = (
                size,
                factor,
                size * factor,
            )
        name = self._emit(origin, Kind.RESIZE if rank == 1 else Kind.RESIZE2D, [x.tensor], **attributes)
        return self._spatial_value(name, x.shape[0], attributes, rank)

    def interpolate(self, origin: Origin, x: Value, taps: list[tuple[np.ndarray, np.ndarray]]) -> Value:
        """Linear interpolation of a (C, *spatial) tensor, separable: per spatial axis the (out, 2) input
        indices and weights of each output; the taps of all axes multiply (bilinear: 4 per output)."""
        rank = len(taps)
        self._check_spatial(origin, x, rank)
        positions = self.positions(x)
        grids = np.meshgrid(*[np.arange(len(sources)) for sources, _ in taps], indexing='ij')
        corners = np.stack(np.meshgrid(*[np.arange(2)] * rank, indexing='ij'), axis=-1).reshape(-1, rank)
        picked, mixed = [], []
        for corner in corners:
            where = [taps[axis][0][grids[axis], corner[axis]] for axis in range(rank)]
            picked.append(positions[(slice(None), *where)])
            factor = np.prod([taps[axis][1][grids[axis], corner[axis]] for axis in range(rank)], axis=0)
            mixed.append(np.broadcast_to(factor, picked[-1].shape))
        index, weight = np.stack(picked, axis=-1), np.stack(mixed, axis=-1)
        out_shape = index.shape[:-1]
        order = (*x.perm, x.rank)
        flat_index = np.transpose(index, order).reshape(-1)
        flat_weight = np.transpose(weight, order).reshape(-1)
        name = self._emit(
            origin,
            Kind.INTERPOLATE,
            [x.tensor],
            weights={'weight': flat_weight.copy()},
            index=flat_index.tolist(),
            out_shape=tuple(out_shape[axis] for axis in x.perm),
            n_reduce=len(corners),
        )
        return Value(name, tuple(out_shape), x.perm)

    def zero_pad(self, origin: Origin, x: Value, pads: list[tuple[int, int]]) -> Value:
        rank = len(pads)
        self._check_spatial(origin, x, rank)
        x = self.channels_last(x, origin)
        attributes: dict[str, Any] = {'n_chan': x.shape[0]}
        for axis, size, (before, after) in zip(AXES[rank], x.shape[1:], pads, strict=True):
            attributes[f'in_{axis}'] = size
            attributes[PAD_NAMES[axis][0]], attributes[PAD_NAMES[axis][1]] = before, after
            attributes[f'out_{axis}'] = size + before + after
        name = self._emit(origin, ZERO_PADDING_OF_RANK[rank], [x.tensor], **attributes)
        return self._spatial_value(name, x.shape[0], attributes, rank)

    # ---- element-wise ---------------------------------------------------------------------------
    def activation(self, origin: Origin, x: Value, activation: str, **parameters: float) -> Value:
        """relu, sigmoid, tanh, softplus, softsign, elu, selu, linear; leaky_relu(alpha),
        elu(alpha), thresholded_relu(theta), clipped_relu(ceiling); hard_sigmoid and hard_swish(slope, shift)."""
        n_in = math.prod(x.shape)
        if activation in PARAMETRIZED_ACTIVATIONS:  # elu: always with its alpha (default 1)
            (value,) = parameters.values() if parameters else (1.0,)
            name = self._emit(
                origin,
                Kind.PARAMETRIZED_ACTIVATION,
                [x.tensor],
                activation=activation,
                n_in=n_in,
                activ_param=float(value),
            )
        elif activation in HARD_ACTIVATIONS:
            name = self._emit(
                origin,
                Kind.HARD_ACTIVATION,
                [x.tensor],
                activation=activation,
                n_in=n_in,
                slope=float(parameters['slope']),
                shift=float(parameters['shift']),
            )
        elif activation in ACTIVATIONS and not parameters:
            name = self._emit(origin, Kind.ACTIVATION, [x.tensor], activation=activation, n_in=n_in)
        else:
            raise UnsupportedOperation(f'{origin}: activation {activation!r} {parameters or ""} is not supported')
        return Value(name, x.shape, x.perm)

    def prelu(self, origin: Origin, x: Value, alpha: np.ndarray) -> Value:
        """PReLU with a slope per channel (framework axis 0) or one slope for all."""
        alpha = np.asarray(alpha, dtype=np.float64).reshape(-1)
        if alpha.size not in (1, x.shape[0]):
            raise UnsupportedOperation(f'{origin}: {alpha.size} slopes do not fit {x.shape[0]} channels')
        per_channel = alpha.reshape((alpha.size,) + (1,) * (x.rank - 1))
        weights = {'alpha': self.per_element(x, per_channel, origin)}
        name = self._emit(origin, Kind.PRELU, [x.tensor], weights=weights, n_in=math.prod(x.shape))
        return Value(name, x.shape, x.perm)

    def softmax(self, origin: Origin, x: Value, axis: int) -> Value:
        """Softmax over framework `axis`: the tensor laid out with that axis last (a Transpose when it is
        not already), then rows of that axis (attribute n_slice)."""
        axis = axis + x.rank if axis < 0 else axis
        if not 0 <= axis < x.rank:
            raise UnsupportedOperation(f'{origin}: softmax over axis {axis} of a tensor of shape {x.shape}')
        if inverse(x.perm)[axis] != x.rank - 1:
            x = self.layout(x, tuple(index for index in x.perm if index != axis) + (axis,), origin)
        name = self._emit(origin, Kind.SOFTMAX, [x.tensor], n_in=math.prod(x.shape), n_slice=x.shape[axis], axis=-1)
        return Value(name, x.shape, x.perm)

    def topk(
        self, origin: Origin, x: Value, k: int, output: str, magnitude: bool = False, largest: bool = True
    ) -> Value:
        """Hard top-k (the k smallest with largest=False) along the last axis of a vector, ties to the
        lower index; `output`: TOPK_OUTPUTS."""
        if x.rank != 1:
            raise UnsupportedOperation(
                f'{origin}: top-k of a tensor of shape {x.shape} is not supported (only vectors, along the last axis)'
            )
        if not 1 <= int(k) <= x.shape[0] or output not in TOPK_OUTPUTS:
            raise UnsupportedOperation(f'{origin}: top-k with k={k} of {x.shape[0]} values and output {output!r}')
        name = self._emit(
            origin,
            Kind.TOPK,
            [x.tensor],
            n_in=x.shape[0],
            k=int(k),
            output=output,
            magnitude=bool(magnitude),
            largest=bool(largest),
        )
        return Value(name, self.graph.tensors[name].shape, (0,))

    def soft_topk(
        self,
        origin: Origin,
        x: Value,
        k: int,
        strength: float,
        mode: str = 'mask',
        iterations: int = 12,
        p: float = 2.0,
    ) -> Value:
        """Sparse soft top-k of a vector: the soft mask or the magnitude form; the regularisation
        strength (the spec's l) any positive number; p = 2 (a linear ramp) or 4/3 (a cubic ramp, mask)."""
        if x.rank != 1:
            raise UnsupportedOperation(f'{origin}: soft top-k of a tensor of shape {x.shape} (only vectors)')
        try:
            strength = check_strength(strength)
        except ValueError as error:
            raise UnsupportedOperation(f'{origin}: {error}') from error
        if not 1 <= int(k) <= x.shape[0] or mode not in SOFT_TOPK_MODES:
            raise UnsupportedOperation(f'{origin}: soft top-k with k={k} of {x.shape[0]} values and mode {mode!r}')
        if soft_topk_power(p, mode) is None:
            raise UnsupportedOperation(f'{origin}: soft top-k with p={p} and mode {mode!r}: {SOFT_TOPK_P_CHOICES}')
        attributes: dict[str, Any] = {'n_in': x.shape[0], 'k': int(k), 'l': strength, 'mode': mode}
        attributes['p'] = 2.0 if soft_topk_power(p, mode) == 1 else 4 / 3
        name = self._emit(origin, Kind.SOFT_TOPK, [x.tensor], iterations=int(iterations), **attributes)
        return Value(name, x.shape, (0,))

    def router(
        self,
        origin: Origin,
        x: Value,
        k: int,
        renormalize: bool,
        output: str,
        capacity: int = 0,
        sinkhorn_iterations: int = 0,
    ) -> Value:
        """Token-choice MoE gating of expert logits along the last axis, each row (token) on its own
        (docs/moe.md); `output`: ROUTER_OUTPUTS; `capacity` > 0: the sample's tokens are one group and
        each expert takes at most that many of them (docs/moe.md, "Capacity"); `sinkhorn_iterations` > 0:
        the experts are chosen on the group's Sinkhorn-balanced scores (docs/moe.md, "Sinkhorn")."""
        if x.rank < 1:
            raise UnsupportedOperation(f'{origin}: a router needs a vector of expert logits, got shape {x.shape}')
        if not 1 <= int(k) <= x.shape[-1] or output not in ROUTER_OUTPUTS:
            raise UnsupportedOperation(f'{origin}: router with k={k} of {x.shape[-1]} experts and output {output!r}')
        x = self.framework_order(x, origin)
        attributes: dict[str, Any] = {'n_in': x.shape[-1], 'k': int(k), 'renormalize': bool(renormalize)}
        if capacity:
            attributes['capacity'] = int(capacity)
        if sinkhorn_iterations:
            attributes['sinkhorn_iterations'] = int(sinkhorn_iterations)
        name = self._emit(origin, Kind.ROUTER, [x.tensor], output=output, **attributes)
        shape = self.graph.tensors[name].shape
        return Value(name, shape, tuple(range(len(shape))))

    def soft_router(self, origin: Origin, x: Value, settings: dict[str, Any]) -> Value:
        """Token-choice MoE gating with a sparse soft top-k mask (docs/moe.md) of expert logits along the
        last axis, each row on its own; `settings`: k, l, p, iterations, k_max, mask_on, renormalize,
        output (`hls4ml.model.reference.soft_router.check_soft_router` says what is computed)."""
        if x.rank < 1:
            raise UnsupportedOperation(f'{origin}: a router needs a vector of expert logits, got shape {x.shape}')
        x = self.framework_order(x, origin)
        attributes = {'n_in': x.shape[-1], **settings}
        try:
            check_soft_router(attributes)
        except ValueError as error:
            raise UnsupportedOperation(f'{origin}: {error}') from error
        attributes['p'] = 4 / 3 if soft_topk_power(attributes.get('p', 2.0), 'mask') == CUBIC_POWER else 2.0
        name = self._emit(origin, Kind.SOFT_TOPK_ROUTER, [x.tensor], **attributes)
        shape = self.graph.tensors[name].shape
        return Value(name, shape, tuple(range(len(shape))))

    def expert_choice(
        self, origin: Origin, x: Value, capacity: int, strength: float = 0.0, iterations: int = 12, p: float = 2.0
    ) -> Value:
        """Expert-choice MoE gating of a group of tokens, framework shape (tokens, experts): each expert
        keeps the softmax gate of its `capacity` best tokens (docs/moe.md); the result keeps that shape.
        `strength` (l) > 0: soft expert choice, the gates times the sparse soft top-k mask (k = capacity)
        of each expert's column (p = 2 or 4/3), its search `iterations` steps."""
        if x.rank != 2:
            raise UnsupportedOperation(f'{origin}: expert choice takes (tokens, experts) logits, got shape {x.shape}')
        if not 1 <= int(capacity) <= x.shape[0]:
            raise UnsupportedOperation(f'{origin}: capacity={capacity} must be between 1 and {x.shape[0]} tokens')
        x = self.framework_order(x, origin)
        attributes: dict[str, Any] = {'n_tokens': x.shape[0], 'n_in': x.shape[1]}
        if strength:
            attributes |= {'l': float(strength), 'iterations': int(iterations)}
            if soft_topk_power(p, 'mask') is None:
                raise UnsupportedOperation(f'{origin}: soft expert choice with p={p}: {SOFT_TOPK_P_CHOICES}')
            if soft_topk_power(p, 'mask') == CUBIC_POWER:
                attributes['p'] = 4 / 3
        name = self._emit(origin, Kind.EXPERT_CHOICE_ROUTER, [x.tensor], capacity=int(capacity), **attributes)
        return Value(name, x.shape, (0, 1))

    def moe(
        self,
        origin: Origin,
        x: Value,
        logits: Value,
        experts: list[tuple[np.ndarray, np.ndarray]],
        k: int,
        renormalize: bool,
    ) -> Value:
        """A mixture of E experts computing only the k routed per token (docs/moe.md): features x
        (..., n_in), router logits (..., E) with the same leading axes; `experts` the (kernels (E, n_in, n),
        biases (E, n)) of one layer (linear experts) or two (FFN experts, a ReLU between); token choice as
        `router`. The result is (..., n_out)."""
        layers = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64)) for w, b in experts]
        count, widths = layers[0][0].shape[0], [x.shape[-1]]
        for kernels, biases in layers:
            if kernels.shape != (count, widths[-1], biases.shape[-1]) or biases.shape != (count, kernels.shape[2]):
                raise UnsupportedOperation(
                    f'{origin}: expert weights {kernels.shape}, biases {biases.shape} after {widths}'
                )
            widths.append(kernels.shape[2])
        if len(layers) > 2 or logits.shape != (*x.shape[:-1], count) or not 1 <= int(k) <= count:
            raise UnsupportedOperation(f'{origin}: k={k} over router logits {logits.shape} for {count} experts')
        x, logits = self.framework_order(x, origin), self.framework_order(logits, origin)
        attributes: dict[str, Any] = {'n_in': widths[0], 'n_out': widths[-1], 'n_experts': count}
        attributes.update(n_hidden=widths[1] if len(layers) == 2 else 0, k=int(k), renormalize=bool(renormalize))
        names = [('weight', 'bias'), ('weight2', 'bias2')][: len(layers)]
        weights = {
            name: value
            for pair, values in zip(names, layers, strict=True)
            for name, value in zip(pair, values, strict=True)
        }
        inputs = [x.tensor, logits.tensor]
        name = self._emit(origin, Kind.MOE, inputs, weights=weights, **attributes)
        shape = self.graph.tensors[name].shape
        return Value(name, shape, tuple(range(len(shape))))

    def som(self, origin: Origin, x: Value, attributes: dict[str, Any], weights: dict[str, np.ndarray]) -> Value:
        """A self-organizing map of a vector; attributes and weights from `converters.som.som_layer_parts`."""
        if x.rank != 1 or x.shape[0] != attributes['n_in']:
            raise UnsupportedOperation(
                f'{origin}: a SOM of {attributes["n_in"]} inputs cannot take a tensor of shape {x.shape} '
                '(it takes vectors; flatten the input first)'
            )
        name = self._emit(origin, Kind.SOM, [x.tensor], weights=weights, **attributes)
        return Value(name, self.graph.tensors[name].shape, (0,))

    def resom(
        self, origin: Origin, x: Value, y: Value, attributes: dict[str, Any], weights: dict[str, np.ndarray]
    ) -> Value:
        """Two SOMs of vectors x and y associated by a lateral matrix; attributes and weights from
        `hls4ml.nn.resom_core.layer_parts`."""
        for side, value, width in (('x', x, attributes['n_in']), ('y', y, attributes['n_in_y'])):
            if value.rank != 1 or value.shape[0] != width:
                raise UnsupportedOperation(
                    f'{origin}: its map {side} of {width} inputs cannot take a tensor of shape {value.shape} '
                    '(it takes vectors; flatten the input first)'
                )
        name = self._emit(origin, Kind.RESOM, [x.tensor, y.tensor], weights=weights, **attributes)
        return Value(name, self.graph.tensors[name].shape, (0,))

    def resom_maps(
        self, origin: Origin, values: list[Value], attributes: dict[str, Any], weights: dict[str, np.ndarray]
    ) -> Value:
        """M SOMs of vectors associated by one lateral matrix per pair; attributes and weights from
        `hls4ml.nn.resom_maps_core.layer_parts`."""
        for index, (value, width) in enumerate(zip(values, attributes['map_inputs'], strict=True)):
            if value.rank != 1 or value.shape[0] != width:
                raise UnsupportedOperation(
                    f'{origin}: its map {index} of {width} inputs cannot take a tensor of shape {value.shape} '
                    '(it takes vectors; flatten the input first)'
                )
        name = self._emit(origin, Kind.RESOM_MAPS, [value.tensor for value in values], weights=weights, **attributes)
        return Value(name, self.graph.tensors[name].shape, (0,))

    def affine(
        self, origin: Origin, x: Value, scale: np.ndarray | float | None = None, bias: np.ndarray | float | None = None
    ) -> Value:
        """`x * scale + bias` with constants broadcast in framework axes (batch norm, mul/add by a constant)."""
        ones, zeros = np.ones(x.shape), np.zeros(x.shape)
        weights = {
            'scale': self.per_element(x, ones if scale is None else scale, origin),
            'bias': self.per_element(x, zeros if bias is None else bias, origin),
        }
        name = self._emit(origin, Kind.BATCH_NORMALIZATION, [x.tensor], weights=weights, n_in=math.prod(x.shape))
        return Value(name, x.shape, x.perm)

    def batchnorm(self, origin: Origin, x: Value, scale: np.ndarray, bias: np.ndarray) -> Value:
        """Inference batch normalization folded to one scale and bias per channel (framework axis 0)."""
        column = (-1,) + (1,) * (x.rank - 1)
        return self.affine(origin, x, np.reshape(scale, column), np.reshape(bias, column))

    def layer_norm(
        self, origin: Origin, x: Value, axes: int, scale: np.ndarray | None, bias: np.ndarray | None, epsilon: float
    ) -> Value:
        """Layer normalization over the last `axes` framework axes (their values are one row in framework
        order), with a scale and bias per value of the row (None: 1 and 0)."""
        if not 1 <= axes <= x.rank:
            raise UnsupportedOperation(f'{origin}: layer normalization over the last {axes} axes of {x.shape}')
        x = self.framework_order(x, origin)
        n = math.prod(x.shape[x.rank - axes :])
        weights = {
            'scale': np.ones(n) if scale is None else np.asarray(scale, dtype=np.float64).reshape(-1),
            'bias': np.zeros(n) if bias is None else np.asarray(bias, dtype=np.float64).reshape(-1),
        }
        if any(values.shape != (n,) for values in weights.values()):
            raise UnsupportedOperation(f'{origin}: a scale or bias does not fit rows of {n} values')
        size, epsilon = math.prod(x.shape), float(epsilon)
        name = self._emit(
            origin, Kind.LAYER_NORMALIZATION, [x.tensor], weights=weights, n_in=size, n_slice=n, epsilon=epsilon
        )
        return Value(name, x.shape, x.perm)

    def embedding(self, origin: Origin, x: Value, table: np.ndarray) -> Value:
        """Rows of `table` (n_vocab, n_dim) selected by integer indices; a model input read directly gets
        the integer type int<32> unless the frontend gave it one (the frameworks feed int32/int64)."""
        table = np.asarray(table, dtype=np.float64)
        if table.ndim != 2:
            raise UnsupportedOperation(f'{origin}: an embedding table of shape {table.shape} (needs 2 axes)')
        x = self.framework_order(x, origin)
        producer = self.graph.layers.get(x.tensor)
        if producer is not None and producer.kind == Kind.INPUT and 'result' not in producer.types:
            producer.types['result'] = IntegerPrecisionType(32, True)
        n_vocab, n_dim = table.shape
        attributes = {'n_in': math.prod(x.shape), 'n_vocab': n_vocab, 'n_dim': n_dim}
        name = self._emit(origin, Kind.EMBEDDING, [x.tensor], weights={'embeddings': table}, **attributes)
        return Value(name, (*x.shape, n_dim), tuple(range(x.rank + 1)))

    def merge(self, origin: Origin, a: Value, b: Value, op: str) -> Value:
        if op not in MERGE_OPS:
            raise UnsupportedOperation(f'{origin}: element-wise {op!r} is not supported')
        if a.shape != b.shape:
            raise UnsupportedOperation(
                f'{origin}: broadcasting {a.shape} with {b.shape} is not supported (equal shapes only)'
            )
        b = self.layout(b, a.perm, origin)
        name = self._emit(origin, Kind.MERGE, [a.tensor, b.tensor], op=op)
        return Value(name, a.shape, a.perm)

    def merge_all(self, origin: Origin, values: list[Value], op: str) -> Value:
        """N tensors of one shape combined by `op` as a balanced tree of two-input merges; an average
        of N is a tree of averages when N is a power of two, else the tree of adds times 1/N."""
        count = len(values)
        if count == 1:
            return values[0]
        if op == 'average' and count & (count - 1):
            total = self.merge_all(Origin(f'{origin.name}_sum', origin.op, origin.where), values, 'add')
            return self.affine(origin, total, scale=1.0 / count)
        pending, made = list(values), 0
        while len(pending) > 1:
            joined = []
            for first, second in zip(pending[0::2], pending[1::2], strict=False):
                inner = Origin(f'{origin.name}_{made}', origin.op, origin.where)
                joined.append(self.merge(origin if len(pending) == 2 else inner, first, second, op))
                made += 1
            pending = joined + pending[2 * len(joined) :]
        return pending[0]

    def quantize(self, origin: Origin, x: Value, precision: PrecisionType) -> Value:
        """Round and clip `x` to `precision` (a linear activation with that result type)."""
        name = self._emit(origin, Kind.ACTIVATION, [x.tensor], activation='linear', n_in=math.prod(x.shape))
        self.graph.layers[name].types['result'] = precision
        self._quantizers.append(name)
        return Value(name, x.shape, x.perm)

    # ---- moving data ----------------------------------------------------------------------------
    def reshape(self, origin: Origin, x: Value, shape: tuple[int, ...]) -> Value:
        """A reshape in framework (row-major, channels-first) order; one -1 is inferred."""
        shape = tuple(int(dim) for dim in shape)
        size = math.prod(x.shape)
        if shape.count(-1) == 1:
            known = -math.prod(shape)
            shape = tuple(size // known if dim == -1 else dim for dim in shape)
        if math.prod(shape) != size or any(dim < 1 for dim in shape):
            raise UnsupportedOperation(f'{origin}: cannot reshape {x.shape} to {shape}')
        if shape == x.shape and x.identity:
            return x
        if not _same_order(x, tuple(range(x.rank))):  # else the data is already in framework order
            x = self.framework_order(x, origin)
        name = self._emit(origin, Kind.RESHAPE, [x.tensor], target_shape=shape)
        return Value(name, shape, tuple(range(len(shape))))

    def flatten(self, origin: Origin, x: Value, start: int = 0, end: int = -1) -> Value:
        """Flatten framework axes start..end (batch excluded)."""
        start, end = start % x.rank if x.rank else 0, end % x.rank if x.rank else 0
        shape = x.shape[:start] + (math.prod(x.shape[start : end + 1]),) + x.shape[end + 1 :]
        return self.reshape(origin, x, shape)

    def transpose(self, origin: Origin, x: Value, perm: tuple[int, ...]) -> Value:
        """Framework output axis i is input axis perm[i]. Moves no data: the output is the same IR
        tensor seen with another layout; the consumers that need a layout make it."""
        perm = tuple(int(axis) % x.rank for axis in perm)
        if sorted(perm) != list(range(x.rank)):
            raise UnsupportedOperation(f'{origin}: {perm} is not a permutation of the {x.rank} axes')
        shape = tuple(x.shape[axis] for axis in perm)
        position = inverse(x.perm)  # framework input axis -> IR axis
        return Value(x.tensor, shape, inverse(tuple(position[axis] for axis in perm)))

    def concat(self, origin: Origin, values: list[Value], axis: int) -> Value:
        """Concatenate along framework `axis`; more than two inputs are joined pairwise."""
        first = values[0]
        axis = axis + first.rank if axis < 0 else axis
        if not 0 <= axis < first.rank:
            raise UnsupportedOperation(f'{origin}: axis {axis} is outside tensors of rank {first.rank}')
        result = first
        for index, other in enumerate(values[1:]):
            if other.rank != first.rank or any(
                a != b for i, (a, b) in enumerate(zip(result.shape, other.shape, strict=True)) if i != axis
            ):
                raise UnsupportedOperation(f'{origin}: cannot concatenate {result.shape} and {other.shape} on {axis}')
            other = self.layout(other, result.perm, origin)
            step = origin if index == len(values) - 2 else Origin(f'{origin.name}_{index}', origin.op, origin.where)
            name = self._emit(step, Kind.CONCATENATE, [result.tensor, other.tensor], axis=inverse(result.perm)[axis])
            shape = tuple(size + other.shape[i] if i == axis else size for i, size in enumerate(result.shape))
            result = Value(name, shape, result.perm)
        return result

    def positions(self, x: Value) -> np.ndarray:
        """An array of x's framework shape holding, at each index, that value's flat IR position."""
        return np.transpose(np.arange(math.prod(x.shape)).reshape(x.ir_shape), inverse(x.perm))

    def gather(self, origin: Origin, x: Value, picked: np.ndarray) -> Value:
        """The values of x at `picked` (what indexing `positions(x)` gave, e.g. a slice; -1 for a zero):
        a Gather, laid out like x when the rank is kept; x itself when nothing moves."""
        if picked.size == 0:
            raise UnsupportedOperation(f'{origin}: the selection is empty')
        perm = x.perm if picked.ndim == x.rank else tuple(range(picked.ndim))
        index = np.transpose(picked, perm).reshape(-1)
        index = np.where(index < 0, math.prod(x.shape), index)  # the kernel writes 0 for index n_in
        if picked.shape == x.shape and np.array_equal(index, np.arange(index.size)):
            return x
        out_shape = tuple(picked.shape[axis] for axis in perm)
        name = self._emit(origin, Kind.GATHER, [x.tensor], index=index.tolist(), out_shape=out_shape)
        return Value(name, tuple(picked.shape), perm)

    def reduce(self, origin: Origin, x: Value, axes: tuple[int, ...], op: str, keepdims: bool) -> Value:
        """sum, mean, max or min over framework `axes`: a Reduce (a mean: its sum times 1/n)."""
        axes = tuple(sorted({axis % x.rank for axis in axes}))
        count = math.prod(x.shape[axis] for axis in axes)
        if op == 'mean':
            total = self.reduce(Origin(f'{origin.name}_sum', origin.op, origin.where), x, axes, 'sum', keepdims)
            return self.affine(origin, total, scale=1.0 / count)
        kept = [axis for axis in range(x.rank) if axis not in axes]
        grouped = np.transpose(self.positions(x), (*kept, *axes)).reshape(-1, count)
        if keepdims:
            shape = tuple(1 if axis in axes else size for axis, size in enumerate(x.shape))
        else:
            shape = tuple(x.shape[axis] for axis in kept) or (1,)  # a scalar per sample: one value
        perm = x.perm if keepdims else tuple(range(len(shape)))
        grouped = grouped.reshape(*shape, count)
        index = np.transpose(grouped, (*perm, len(shape))).reshape(-1)
        out_shape = tuple(shape[axis] for axis in perm)
        name = self._emit(
            origin, Kind.REDUCE, [x.tensor], index=index.tolist(), out_shape=out_shape, n_reduce=count, op=op
        )
        return Value(name, shape, perm)

    # ---- helpers --------------------------------------------------------------------------------
    def _check_spatial(self, origin: Origin, x: Value, rank: int) -> None:
        if x.rank != rank + 1:
            raise UnsupportedOperation(
                f'{origin}: expects a (channels, {", ".join(AXES.get(rank, ("...",)))}) input, got shape {x.shape}'
            )

    def _window(
        self, origin: Origin, x: Value, window: tuple[int, ...], strides: tuple[int, ...], pads: list[tuple[int, int]]
    ) -> dict[str, Any]:
        rank = len(window)
        if len(strides) != rank or len(pads) != rank:
            raise UnsupportedOperation(f'{origin}: strides {strides} or pads {pads} do not fit a {rank}-D window')
        attributes: dict[str, Any] = {'n_chan': x.shape[0], 'data_format': 'channels_last'}
        for axis, size, length, stride, (before, after) in zip(
            AXES[rank], x.shape[1:], window, strides, pads, strict=True
        ):
            attributes[f'in_{axis}'], attributes[f'stride_{axis}'] = size, int(stride)
            attributes[PAD_NAMES[axis][0]], attributes[PAD_NAMES[axis][1]] = int(before), int(after)
            attributes[f'out_{axis}'] = window_output(size, length, int(stride), int(before), int(after))
            if attributes[f'out_{axis}'] < 1 or stride < 1:
                raise UnsupportedOperation(f'{origin}: the window {window} does not fit the input {x.shape}')
        return attributes

    def _spatial_value(self, name: str, channels: int, attributes: dict[str, Any], rank: int) -> Value:
        shape = (channels, *(attributes[f'out_{axis}'] for axis in AXES[rank]))
        return Value(name, shape, channels_last_perm(rank + 1))

    def _emit(
        self,
        origin: Origin,
        kind: KindRecord,
        inputs: list[str],
        name: str | None = None,
        weights: dict[str, np.ndarray] | None = None,
        types: dict[str, PrecisionType] | None = None,
        **attributes: Any,
    ) -> str:
        """Add one IR layer (named after the operation unless `name` is given); returns its name."""
        ir_name = self.names.add(name or origin.name)
        if name is None:
            self.origin[ir_name] = origin.name
        layer = Layer(
            ir_name,
            kind,
            inputs,
            [ir_name],
            attributes,
            weights or {},
            dict(types or {}),
            source_name=origin.name if name is None else '',
            source_class=origin.op if name is None else '',
        )
        shapes = [self.graph.tensors[tensor].shape for tensor in inputs]
        self.graph.add_layer(layer, [LAYER_KINDS[kind].output_shape(layer, shapes)])
        return ir_name

    def _drop_unread(self) -> None:
        """Remove the layers whose results nothing reads (a recurrent module's h_n layers when only its
        output sequence is used): they would cost hardware and compute nothing the model returns."""
        read = set(self.graph.outputs) | {name for layer in self.graph.layers.values() for name in layer.inputs}
        unread = [
            layer
            for layer in self.graph.layers.values()
            if layer.inputs and not any(output in read for output in layer.outputs)
        ]
        for layer in unread:
            for output in layer.outputs:
                del self.graph.tensors[output]
            del self.graph.layers[layer.name]
            self.origin.pop(layer.name, None)
        if unread:
            self._drop_unread()  # their inputs may now be unread too

    def _fold_quantizers(self) -> None:
        """A quantizer whose producer rounds once and feeds nothing else becomes that producer's type."""
        for name in self._quantizers:
            quantizer = self.graph.layers[name]
            producer = self.graph.producer(quantizer.inputs[0])
            foldable = producer.kind in FOLDABLE or (
                producer.kind == Kind.ACTIVATION and producer.attributes.get('activation') in FOLDABLE_ACTIVATIONS
            )
            output = producer.outputs[0]
            alone = len(self.graph.consumers(output)) == 1 and output not in self.graph.outputs
            if foldable and alone and 'result' not in producer.types:
                producer.types['result'] = quantizer.types['result']
                self.graph.remove_layer(quantizer)
                self.origin.pop(name, None)
