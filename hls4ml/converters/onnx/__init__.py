"""ONNX / QONNX frontend: ONNX nodes -> GraphBuilder calls -> IR graph."""

from __future__ import annotations

from typing import Any

from hls4ml.model.ir import Graph


def parse_onnx_model(
    model: Any, channels_last_conversion: str = 'full', transpose_outputs: bool = False
) -> tuple[Graph, dict[str, str]]:
    """The IR graph of `model` (ModelProto, qonnx ModelWrapper or .onnx path) and IR layer -> node name."""
    raise NotImplementedError('the ONNX frontend is being written')
