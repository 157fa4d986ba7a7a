"""Export PyTorch models holding `hls4ml.nn` layers to ONNX, each layer one custom op of domain `hls4ml.nn`
(`hls4ml.nn.onnx_ops`), so ONNX users can carry them to hls4ml's ONNX frontend:

    from hls4ml.nn.onnx import export
    export(model, (x, y), 'model.onnx')          # then hls4ml.converters.convert_from_onnx_model('model.onnx')

torch.onnx's TorchScript exporter traces the model; while it runs, each layer's function (`som_forward`,
`resom_forward`, `soft_topk_router`, `sparse_moe`, ...) is replaced by a `torch.autograd.Function` that
computes the same values and whose `symbolic` writes the custom op: the tensor arguments as inputs (the
module's codebooks, lateral matrix, labels and expert weights become initializers; a list of tensors is
its tensors in a row), the settings as attributes. Every other module exports as torch.onnx exports it.
A layer that is not a single call of its function (SparseMoE: the gate Linear first) exports its other
parts as standard ops. onnxruntime cannot run the result (no `hls4ml.nn` domain there).
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from hls4ml.nn import torch_experts, torch_moe, torch_resom, torch_resom_maps, torch_routers, torch_som
from hls4ml.nn.onnx_ops import DOMAIN, DOMAIN_VERSION, OPS, CustomOp

# (module, function name) -> op type: the functions the hls4ml.nn layers' forward passes call
EXPORTED: dict[tuple[Any, str], str] = {
    (torch_som, 'som_forward'): 'SOM',
    (torch_resom, 'resom_forward'): 'ReSOM',
    (torch_moe, 'sparse_soft_topk'): 'SparseSoftTopK',
    (torch_moe, 'topk_router'): 'TopKRouter',
    (torch_moe, 'expert_choice'): 'ExpertChoiceRouter',
    (torch_resom_maps, 'resom_maps_forward'): 'ReSOMMaps',
    (torch_routers, 'soft_topk_router'): 'SoftTopKRouter',
    (torch_experts, 'sparse_moe'): 'SparseMoE',
    (torch_experts, 'sparse_moe_ffn'): 'SparseMoEFFN',
    (torch_experts, 'soft_moe'): 'SoftMoE',
}
OPSET = 17


def export(model: torch.nn.Module, args: Any, path: str, opset_version: int = OPSET, **options: Any) -> None:
    """Write `model` (run on example inputs `args`, a tensor or a tuple) to the ONNX file `path`, its
    hls4ml.nn layers as custom ops; `options` go to torch.onnx.export (input_names, output_names, ...)."""
    with _custom_ops(), warnings.catch_warnings(), torch.no_grad():
        warnings.filterwarnings('ignore', category=DeprecationWarning)  # the TorchScript exporter's notice
        torch.onnx.export(
            model,
            args if isinstance(args, tuple) else (args,),
            path,
            dynamo=False,
            opset_version=opset_version,
            custom_opsets={DOMAIN: DOMAIN_VERSION},
            **options,
        )


@contextlib.contextmanager
def _custom_ops() -> Iterator[None]:
    """Replace the layers' functions by their exporting twins for the duration of the export."""
    originals = {(module, name): getattr(module, name) for module, name in EXPORTED}
    try:
        for (module, name), op_type in EXPORTED.items():
            setattr(module, name, _exporting(OPS[op_type], originals[(module, name)]))
        yield
    finally:
        for (module, name), function in originals.items():
            setattr(module, name, function)


def _exporting(op: CustomOp, function: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """`function`, called as the layer calls it, computed by an autograd Function that exports as `op`: the
    arguments are bound by name (an attribute the function does not take yet has its `DEFAULTS` value) and
    list inputs are passed flat, with their lengths (`layout`) beside them."""
    parameters = inspect.signature(function).parameters

    class Exported(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, layout: tuple[int, ...], *arguments: Any) -> torch.Tensor:
            named = _regrouped(op, layout, arguments)
            return _untraced(function, {name: value for name, value in named.items() if name in parameters})

        @staticmethod
        def symbolic(graph: Any, layout: tuple[int, ...], *arguments: Any) -> Any:
            count = sum(max(length, 1) for length in layout)
            settings = dict(zip(op.attributes, arguments[count:], strict=True))
            attributes = {
                _attribute_key(name, kind): _attribute(settings[name], kind) for name, kind in op.attributes.items()
            }
            return graph.op(f'{DOMAIN}::{op.op_type}', *arguments[:count], **attributes)

    def call(*arguments: Any, **keywords: Any) -> torch.Tensor:
        bound = inspect.signature(function).bind_partial(*arguments, **keywords)
        uncarried = sorted(set(bound.arguments) - set(op.arguments))
        if uncarried:  # a setting the op has no attribute for would be lost in the file
            raise ValueError(f'hls4ml.nn.onnx.export: {op.op_type} has no attribute for {", ".join(uncarried)}')
        bound.apply_defaults()
        defaults = DEFAULTS.get(op.op_type, {})
        missing = [name for name in op.arguments if name not in bound.arguments and name not in defaults]
        if missing:
            raise ValueError(f'hls4ml.nn.onnx.export: {op.op_type} is missing argument(s) {", ".join(missing)}')
        named = {name: bound.arguments.get(name, defaults.get(name)) for name in op.arguments}
        layout = tuple(len(named[name]) if name in op.lists else 0 for name in op.inputs)
        if len({length for length in layout if length}) > 1:  # the importer splits the inputs evenly
            raise ValueError(f'hls4ml.nn.onnx.export: {op.op_type} lists {", ".join(op.lists)} differ in length')
        flat = [tensor for name in op.inputs for tensor in (named[name] if name in op.lists else [named[name]])]
        return Exported.apply(layout, *flat, *(named[name] for name in op.attributes))

    return call


def _regrouped(op: CustomOp, layout: tuple[int, ...], arguments: tuple[Any, ...]) -> dict[str, Any]:
    """The op's arguments by name from the flat list `call` passed: each list input gathered back."""
    named: dict[str, Any] = {}
    position = 0
    for name, length in zip(op.inputs, layout, strict=True):
        named[name] = list(arguments[position : position + length]) if name in op.lists else arguments[position]
        position += max(length, 1)
    named.update(zip(op.attributes, arguments[position:], strict=True))
    return named


def _untraced(function: Callable[..., torch.Tensor], arguments: dict[str, Any]) -> torch.Tensor:
    """`function(**arguments)` unseen by the tracer: an op inside it that returns its own input (`x.to()` of
    the same dtype) would otherwise stand for that input in the exported graph."""
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    try:
        with torch.no_grad():  # the result is recorded by the op's symbolic, not as a traced constant
            return function(**arguments)
    finally:
        torch._C._set_tracing_state(state)


DEFAULTS: dict[str, dict[str, Any]] = {}  # attributes a layer's function does not take (yet): their fixed value


def _attribute_key(name: str, kind: str) -> str:
    """torch's spelling of an attribute of that kind: name_i, name_t, name_s (ints: a list to name_i;
    doubles: a float64 tensor to name_t)."""
    return f'{name}_{ {"int": "i", "ints": "i", "double": "t", "doubles": "t", "string": "s"}[kind] }'


def _attribute(value: Any, kind: str) -> Any:
    if kind == 'ints':
        return [int(item) for item in np.ravel(value)]
    if kind == 'doubles':
        return torch.tensor([float(item) for item in value], dtype=torch.float64)
    if kind == 'int':
        return int(value)
    if kind == 'double':
        return torch.tensor(float(value), dtype=torch.float64)
    return str(value)
