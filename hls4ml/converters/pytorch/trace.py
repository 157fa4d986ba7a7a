"""What the walk knows before it builds anything: the fx trace, the input shapes, which nodes depend
on the inputs (the rest are constants), which have no handler, and what PyTorch computes for every
node on a batch of one (shapes to check the conversion against, values of the constants)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from numbers import Integral
from typing import Any

import torch
from torch import fx

from hls4ml.converters.builder import ConversionError, Origin
from hls4ml.converters.pytorch.registry import FUNCTIONS, METHODS, MODULE_FORWARDS, MODULES, Handler


def sample_shapes(input_shape: Any) -> list[tuple[int, ...]]:
    """One shape without the batch axis per model input: a tuple for one input, a list of tuples
    for several (a flat list of ints, as YAML gives, is one shape)."""
    sequence = isinstance(input_shape, (tuple, list))
    if sequence and input_shape and all(isinstance(shape, (tuple, list)) for shape in input_shape):
        shapes = [tuple(shape) for shape in input_shape]
    elif sequence:
        shapes = [tuple(input_shape)]
    else:
        raise ConversionError(f'input_shape must be a tuple or a list of tuples, got {input_shape!r}')
    for shape in shapes:
        if not shape or any(isinstance(dim, bool) or not isinstance(dim, Integral) or dim < 1 for dim in shape):
            raise ConversionError(
                f'input_shape {input_shape!r}: every input needs a shape of positive ints without the batch axis'
            )
    return [tuple(int(dim) for dim in shape) for shape in shapes]


def trace(model: Any) -> fx.GraphModule:
    """The model in eval mode, traced symbolically; modules of torch.nn stay single nodes."""
    if not isinstance(model, torch.nn.Module):
        raise ConversionError(f'expected a torch.nn.Module, got {type(model).__name__}')
    model.eval()
    if fx.Tracer().is_leaf_module(model, ''):  # a lone torch.nn layer: keep it one node, as inside a model
        model = torch.nn.Sequential(OrderedDict([(type(model).__name__.lower(), model)]))
    try:
        traced = fx.symbolic_trace(model)
    except Exception as error:
        raise ConversionError(
            f'torch.fx cannot trace {type(model).__name__} ({type(error).__name__}: {error}); control flow that '
            'depends on tensor values, and calls fx cannot follow, must be moved out of forward()'
        ) from error
    _drop_unread_items(traced)
    return traced


def _drop_unread_items(traced: fx.GraphModule) -> None:
    """Remove the items of tuple results that nothing reads (`out, _ = attention(x, x, x)` unpacks both):
    an item that is made lazily (the averaged attention weights) then costs no layers."""
    for node in reversed(list(traced.graph.nodes)):
        if node.op == 'call_function' and node.target is operator.getitem and not node.users:
            traced.graph.erase_node(node)


def origin_of(node: fx.Node, traced: fx.GraphModule) -> Origin:
    """Modules by their path ('features.0') and class; functions and methods by node name and function name,
    except a module's whole forward pass (MODULE_FORWARDS), named after that module."""
    if node.op == 'call_module':
        module = traced.get_submodule(str(node.target))
        return Origin(str(node.target), type(module).__name__, f'module {node.target}')
    if node.op == 'call_function' and _is_module_forward(node.target):
        return _calling_module(node, traced)
    if node.op == 'call_function':
        name = getattr(node.target, '__name__', str(node.target)).lstrip('_')
        return Origin(node.name, name, 'function')
    if node.op == 'call_method':
        return Origin(node.name, str(node.target), 'tensor method')
    return Origin(node.name, node.op)


def _is_module_forward(target: Any) -> bool:
    try:
        return target in MODULE_FORWARDS
    except TypeError:  # an unhashable callable
        return False


def _calling_module(node: fx.Node, traced: fx.GraphModule) -> Origin:
    """The module whose forward pass the node is: the innermost one fx recorded around the call, or the
    traced model itself (named after its class in lower case, as a lone torch.nn layer is)."""
    stack = node.meta.get('nn_module_stack') or {}
    if not stack:
        class_name = type(traced).__name__
        return Origin(class_name.lower(), class_name, 'the traced model')
    path, module_class = list(stack.values())[-1]
    class_name = getattr(module_class, '__name__', str(module_class).rsplit('.', 1)[-1])
    return Origin(str(path), class_name, f'module {path}')


def handler_of(node: fx.Node, traced: fx.GraphModule) -> Handler | None:
    """The registered handler of a call node, or None."""
    if node.op == 'call_module':
        return MODULES.get(type(traced.get_submodule(str(node.target))).__name__)
    if node.op == 'call_function':
        try:
            return FUNCTIONS.get(node.target)
        except TypeError:  # an unhashable callable
            return None
    if node.op == 'call_method':
        return METHODS.get(str(node.target))
    return None


def input_dependent(graph: fx.Graph) -> set[fx.Node]:
    """The nodes computed from the model inputs; every other node is a constant."""
    dependent: set[fx.Node] = set()
    for node in graph.nodes:
        if node.op == 'placeholder' or any(source in dependent for source in node.all_input_nodes):
            dependent.add(node)
    return dependent


def unsupported_nodes(
    traced: fx.GraphModule, dependent: set[fx.Node], explained: dict[fx.Node, str] | None = None
) -> list[str]:
    """Every operation on the inputs without a handler, as `'name' (op, where)`, or as the reason
    `explained` gives for it (an explained node is refused even if it has a handler: the sum of a
    router's renormalisation that cannot be matched)."""
    calls = ('call_module', 'call_function', 'call_method')
    explained = explained or {}
    return [
        explained.get(node) or str(origin_of(node, traced))
        for node in traced.graph.nodes
        if node.op in calls and node in dependent and (handler_of(node, traced) is None or node in explained)
    ]


class _Recorder(fx.Interpreter):
    """Runs the traced model and keeps every node's result."""

    def __init__(self, traced: fx.GraphModule) -> None:
        super().__init__(traced)
        self.traced = traced
        self.extra_traceback = False
        self.results: dict[fx.Node, Any] = {}

    def run_node(self, node: fx.Node) -> Any:
        try:
            result = super().run_node(node)
        except Exception as error:
            raise ConversionError(
                f'{origin_of(node, self.traced)}: PyTorch fails on inputs of the given input_shape '
                f'({type(error).__name__}: {error}); input_shape is the shape of one sample, without the batch axis'
            ) from error
        self.results[node] = result
        return result


def run_on_zeros(traced: fx.GraphModule, shapes: list[tuple[int, ...]]) -> dict[fx.Node, Any]:
    """Every node's result on a batch of one sample of zeros per input (integer zeros for an input
    that an embedding reads: its indices)."""
    recorder = _Recorder(traced)
    placeholders = [node for node in traced.graph.nodes if node.op == 'placeholder']
    with torch.no_grad():
        recorder.run(
            *(
                torch.zeros((1, *shape), dtype=torch.long if _indexes_an_embedding(node, traced) else torch.float32)
                for node, shape in zip(placeholders, shapes, strict=False)
            )
        )
    return recorder.results


def _indexes_an_embedding(node: fx.Node, traced: fx.GraphModule) -> bool:
    for user in node.users:
        if user.op == 'call_module' and isinstance(traced.get_submodule(str(user.target)), torch.nn.Embedding):
            return True
        if user.op == 'call_function' and user.target is torch.nn.functional.embedding:
            return True
    return False
