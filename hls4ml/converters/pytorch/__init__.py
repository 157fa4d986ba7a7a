"""The PyTorch frontend: `parse_pytorch_model(model, input_shape, ...) -> (Graph, origin names)`.

A torch.fx trace is walked node by node; each module, function or tensor method has a handler in
`activations`, `arithmetic`, `einsum`, `experts`, `gathers`, `routers`, `selection`, `sequence`, `som`, `spatial` or
`structure` that calls `hls4ml.converters.builder.GraphBuilder`. Before the walk, `router_pattern`
rewrites the hand-written MoE router subgraphs (softmax -> topk -> optional renormalisation) into one node each.
"""

from hls4ml.converters.pytorch import (  # noqa: F401  (they register their handlers)
    activations,
    arithmetic,
    attention,
    einsum,
    experts,
    gathers,
    recurrent,
    recurrent_cells,
    routers,
    selection,
    sequence,
    som,
    spatial,
    structure,
)
from hls4ml.converters.pytorch.parser import parse_pytorch_model
from hls4ml.converters.pytorch.registry import FUNCTIONS, METHODS, MODULES

__all__ = ['FUNCTIONS', 'METHODS', 'MODULES', 'parse_pytorch_model']
