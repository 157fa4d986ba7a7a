"""PyTorch frontend: torch.fx graph -> GraphBuilder calls -> IR graph."""

from __future__ import annotations

from typing import Any

from hls4ml.model.ir import Graph


def parse_pytorch_model(
    model: Any, input_shape: Any, channels_last_conversion: str = 'full', transpose_outputs: bool = False
) -> tuple[Graph, dict[str, str]]:
    """The IR graph of `model` and, for each IR layer named after a module or node, that name."""
    raise NotImplementedError('the PyTorch frontend is being written')
