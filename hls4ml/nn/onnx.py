"""Export PyTorch models holding `hls4ml.nn` layers to ONNX, each layer one custom op of domain `hls4ml.nn`
(`hls4ml.nn.onnx_ops`), so ONNX users can carry them to hls4ml's ONNX frontend:

    from hls4ml.nn.onnx import export
    export(model, (x, y), 'model.onnx')          # then hls4ml.converters.convert_from_onnx_model('model.onnx')

torch.onnx's TorchScript exporter traces the model; while it runs, each layer's function (`som_forward`,
`resom_forward`, ...) is replaced by a `torch.autograd.Function` that computes the same values and whose
`symbolic` writes the custom op: the tensor arguments as inputs (the module's codebooks, lateral matrix and
labels become initializers), the settings as attributes. Every other module exports as torch.onnx exports
it. onnxruntime cannot run the result (no `hls4ml.nn` domain there).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import torch

from hls4ml.nn import torch_moe, torch_resom, torch_som
from hls4ml.nn.onnx_ops import DOMAIN, DOMAIN_VERSION, OPS, CustomOp

# (module, function name) -> op type: the functions the hls4ml.nn layers' forward passes call
EXPORTED: dict[tuple[Any, str], str] = {
    (torch_som, 'som_forward'): 'SOM',
    (torch_resom, 'resom_forward'): 'ReSOM',
    (torch_moe, 'sparse_soft_topk'): 'SparseSoftTopK',
    (torch_moe, 'topk_router'): 'TopKRouter',
    (torch_moe, 'expert_choice'): 'ExpertChoiceRouter',
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
    """`function` with every argument given positionally, computed by an autograd Function that exports
    as `op`."""

    class Exported(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, *arguments: Any) -> torch.Tensor:
            return _untraced(function, arguments)

        @staticmethod
        def symbolic(graph: Any, *arguments: Any) -> Any:
            inputs = arguments[: len(op.inputs)]
            settings = dict(zip(op.attributes, arguments[len(op.inputs) :], strict=True))
            attributes = {
                _attribute_key(name, kind): _attribute(settings[name], kind) for name, kind in op.attributes.items()
            }
            return graph.op(f'{DOMAIN}::{op.op_type}', *inputs, **attributes)

    def call(*arguments: Any, **keywords: Any) -> torch.Tensor:
        names = op.arguments[len(arguments) :]
        missing = [name for name in names if name not in keywords and name not in DEFAULTS.get(op.op_type, {})]
        if missing:
            raise ValueError(f'hls4ml.nn.onnx.export: {op.op_type} is missing argument(s) {", ".join(missing)}')
        rest = [keywords.get(name, DEFAULTS.get(op.op_type, {}).get(name)) for name in names]
        return Exported.apply(*arguments, *rest)

    return call


def _untraced(function: Callable[..., torch.Tensor], arguments: tuple[Any, ...]) -> torch.Tensor:
    """`function(*arguments)` unseen by the tracer: an op inside it that returns its own input (`x.to()` of
    the same dtype) would otherwise stand for that input in the exported graph."""
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    try:
        with torch.no_grad():  # the result is recorded by the op's symbolic, not as a traced constant
            return function(*arguments)
    finally:
        torch._C._set_tracing_state(state)


DEFAULTS: dict[str, dict[str, Any]] = {  # the functions' default arguments
    'SparseSoftTopK': {'iterations': 12, 'p': 2.0},
    'TopKRouter': {'capacity': 0, 'sinkhorn_iterations': 0},
    'ExpertChoiceRouter': {'strength': 0.0, 'iterations': 12},
}


def _attribute_key(name: str, kind: str) -> str:
    """torch's spelling of an attribute of that kind: name_i, name_t, name_s (ints: a list to name_i)."""
    return f'{name}_{ {"int": "i", "ints": "i", "double": "t", "string": "s"}[kind] }'


def _attribute(value: Any, kind: str) -> Any:
    if kind == 'ints':
        return [int(item) for item in value]
    if kind == 'int':
        return int(value)
    if kind == 'double':
        return torch.tensor(float(value), dtype=torch.float64)
    return str(value)
