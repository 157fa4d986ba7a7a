"""Activations, softmax, dropout and identity: modules and their functional / tensor-method forms."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, constant, functions, modules, sample_axis, tensor

# activation -> (module class, functions, tensor methods); all take (input[, inplace])
PLAIN = {
    'relu': ('ReLU', (torch.relu, torch.relu_, F.relu, F.relu_), ('relu', 'relu_')),
    'sigmoid': ('Sigmoid', (torch.sigmoid, torch.sigmoid_, F.sigmoid), ('sigmoid', 'sigmoid_')),
    'tanh': ('Tanh', (torch.tanh, torch.tanh_, F.tanh), ('tanh', 'tanh_')),
    'selu': ('SELU', (torch.selu, torch.selu_, F.selu), ()),
    'softsign': ('Softsign', (F.softsign,), ()),
    'silu': ('SiLU', (F.silu,), ()),
}
GELU_FORMS = {'none': 'gelu', 'tanh': 'gelu_tanh'}  # torch's `approximate` -> the table of that form
DROPOUTS = ('Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout')
SOFTPLUS_THRESHOLD = 20.0  # PyTorch's default: above it softplus(x) is x, within 2e-9


def _plain(activation: str) -> Any:
    def handler(step: Step, x: Any, inplace: bool = False) -> Value:
        return step.builder.activation(step.origin, tensor(step, x), activation)

    return handler


def _plain_module(activation: str) -> Any:
    def handler(step: Step, module: Any, x: Any) -> Value:
        return step.builder.activation(step.origin, tensor(step, x), activation)

    return handler


for _activation, (_class_name, _functions, _methods) in PLAIN.items():
    functions(*_functions, methods=_methods)(_plain(_activation))
    modules(_class_name)(_plain_module(_activation))


@functions(F.leaky_relu, F.leaky_relu_)
def leaky_relu(step: Step, x: Any, negative_slope: float = 0.01, inplace: bool = False) -> Value:
    return step.builder.activation(step.origin, tensor(step, x), 'leaky_relu', alpha=float(negative_slope))


@modules('LeakyReLU')
def leaky_relu_module(step: Step, module: Any, x: Any) -> Value:
    return leaky_relu(step, x, module.negative_slope)


@functions(F.elu, F.elu_)
def elu(step: Step, x: Any, alpha: float = 1.0, inplace: bool = False) -> Value:
    """Always with its alpha: the elu kernel and its reference take alpha as an argument, even 1.0."""
    return step.builder.activation(step.origin, tensor(step, x), 'elu', alpha=float(alpha))


@modules('ELU')
def elu_module(step: Step, module: Any, x: Any) -> Value:
    return elu(step, x, module.alpha)


@functions(F.prelu, torch.prelu)
def prelu(step: Step, x: Any, weight: Any) -> Value:
    return step.builder.prelu(step.origin, tensor(step, x), constant(step, weight, 'the slope'))


@modules('PReLU')
def prelu_module(step: Step, module: Any, x: Any) -> Value:
    return prelu(step, x, module.weight.detach().cpu().numpy())


@functions(F.softplus)
def softplus(step: Step, x: Any, beta: float = 1.0, threshold: float = SOFTPLUS_THRESHOLD) -> Value:
    if float(beta) != 1.0:
        raise step.refuse(f'softplus with beta={beta} is not supported (only beta=1)')
    if float(threshold) < SOFTPLUS_THRESHOLD:
        raise step.refuse(f'softplus with threshold={threshold} is not supported (only {SOFTPLUS_THRESHOLD} or more)')
    return step.builder.activation(step.origin, tensor(step, x), 'softplus')


@modules('Softplus')
def softplus_module(step: Step, module: Any, x: Any) -> Value:
    return softplus(step, x, module.beta, module.threshold)


@functions(F.gelu)
def gelu(step: Step, x: Any, approximate: str = 'none') -> Value:
    if approximate not in GELU_FORMS:
        raise step.refuse(f"gelu with approximate={approximate!r} is not supported ('none' or 'tanh')")
    return step.builder.activation(step.origin, tensor(step, x), GELU_FORMS[approximate])


@modules('GELU')
def gelu_module(step: Step, module: Any, x: Any) -> Value:
    return gelu(step, x, module.approximate)


@functions(F.hardsigmoid)
def hardsigmoid(step: Step, x: Any, inplace: bool = False) -> Value:
    """relu6(x + 3) / 6 = clip(x / 6 + 1/2, 0, 1)."""
    return step.builder.activation(step.origin, tensor(step, x), 'hard_sigmoid', slope=1 / 6, shift=0.5)


@modules('Hardsigmoid')
def hardsigmoid_module(step: Step, module: Any, x: Any) -> Value:
    return hardsigmoid(step, x)


@functions(F.hardtanh, F.hardtanh_)
def hardtanh(step: Step, x: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Value:
    """clip(x, low, high) = width * hard_sigmoid(x / width - low / width) + low, when the width
    (high - low) is a power of two, so that the slope is exact."""
    width = float(max_val) - float(min_val)
    if width <= 0 or math.log2(width) != round(math.log2(width)):
        raise step.refuse(f'hardtanh({min_val}, {max_val}) is not supported: max_val - min_val must be a power of two')
    unit = step.builder.activation(
        step.part('unit'), tensor(step, x), 'hard_sigmoid', slope=1 / width, shift=-float(min_val) / width
    )
    return step.builder.affine(step.origin, unit, scale=width, bias=float(min_val))


@modules('Hardtanh')
def hardtanh_module(step: Step, module: Any, x: Any) -> Value:
    return hardtanh(step, x, module.min_val, module.max_val)


@functions(F.threshold, F.threshold_)  # type: ignore[attr-defined]  # threshold_ is missing from the stubs
def threshold(step: Step, x: Any, threshold: float, value: float, inplace: bool = False) -> Value:
    """x if x > threshold else value: a thresholded relu when value is 0."""
    if float(value) != 0.0:
        raise step.refuse(f'threshold with value={value} is not supported (only value=0)')
    return step.builder.activation(step.origin, tensor(step, x), 'thresholded_relu', theta=float(threshold))


@modules('Threshold')
def threshold_module(step: Step, module: Any, x: Any) -> Value:
    return threshold(step, x, module.threshold, module.value)


@functions(F.softmax, torch.softmax, methods=('softmax',))
def softmax(step: Step, x: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Value:
    x = tensor(step, x)
    if dim is None:  # PyTorch's implicit choice (deprecated): dim 0 for 0-, 1- and 3-D tensors, else dim 1
        dim = 0 if x.rank + 1 in (0, 1, 3) else 1
    return step.builder.softmax(step.origin, x, sample_axis(step, x, dim))


@modules('Softmax')
def softmax_module(step: Step, module: Any, x: Any) -> Value:
    return softmax(step, x, module.dim)


@functions(F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout)
def dropout(step: Step, x: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Value:
    if training and float(p) > 0:
        raise step.refuse('dropout with training=True drops values at inference too; pass training=self.training')
    return tensor(step, x)


@modules(*DROPOUTS, 'Identity')
def pass_through(step: Step, module: Any, x: Any, *args: Any, **kwargs: Any) -> Value:
    """Dropout (inference) and Identity: the input itself, no IR layer."""
    return tensor(step, x)
