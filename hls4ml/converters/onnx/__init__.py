"""ONNX / QONNX frontend: the qonnx clean-up, then one GraphBuilder call per ONNX node -> IR graph.

`parser` walks the graph and collects errors; `handlers`, `structure` and `spatial` hold one
handler per standard op, `quant` the QONNX quantizers (exact fixed-point types).
"""

from hls4ml.converters.onnx.parser import parse_onnx_model

__all__ = ['parse_onnx_model']
