"""The `hls4ml.nn` layers as ONNX custom ops of domain `hls4ml.nn` (docs/frontends.md, "hls4ml.nn layers in
ONNX"): one table, read by the exporter (`hls4ml.nn.onnx.export`) and by the ONNX frontend
(`hls4ml.converters.onnx.custom_ops`). Framework-free: importing it imports neither torch nor onnx.

Each layer's forward pass is one call of a function (`som_forward`, `resom_forward`, ...); its op has
that function's tensor arguments as inputs, in order (the data first, then the weights, which the export
stores as initializers), and its other arguments as attributes of the same names. An input that is a list
of M tensors (ReSOMMaps: one per map) stands as M inputs in a row, every list of the op the same length.
How to add a layer:
one `CustomOp` row below, its function in `hls4ml.nn.onnx.EXPORTED`, and its importer in
`hls4ml.converters.onnx.custom_ops.IMPORTERS`.

onnxruntime cannot run these ops (it knows no `hls4ml.nn` domain): the exported file is for carrying the
layers to hls4ml (or another tool that implements them), not for running them in ONNX.
"""

from __future__ import annotations

from dataclasses import dataclass

DOMAIN = 'hls4ml.nn'
DOMAIN_VERSION = 1


@dataclass(frozen=True)
class CustomOp:
    """One layer as an ONNX op: its tensor inputs (in order), its attributes with their kinds ('int',
    'double', 'string', 'ints', 'doubles'; bools are ints; a list of pairs is flattened to 'ints') and the
    inputs that are lists of tensors (`lists`, each the same length)."""

    op_type: str
    inputs: tuple[str, ...]
    attributes: dict[str, str]
    lists: tuple[str, ...] = ()

    @property
    def arguments(self) -> tuple[str, ...]:
        """The argument names of the layer's function, in order."""
        return (*self.inputs, *self.attributes)


OPS: dict[str, CustomOp] = {
    op.op_type: op
    for op in (
        CustomOp(
            'SOM',
            ('x', 'codebook', 'labels'),
            {'grid': 'ints', 'distance': 'string', 'output': 'string', 'topology': 'string', 'beta': 'double'},
        ),
        CustomOp(
            'ReSOM',
            ('x', 'y', 'codebook_x', 'codebook_y', 'lateral', 'labels_x', 'labels_y'),
            {
                'grid_x': 'ints',
                'grid_y': 'ints',
                'distance': 'string',
                'source': 'string',
                'combine': 'string',
                'iterations': 'int',
                'output': 'string',
                'beta_x': 'double',
                'beta_y': 'double',
            },
        ),
        CustomOp(
            'SparseSoftTopK',
            ('x',),
            {'k': 'int', 'strength': 'double', 'mode': 'string', 'iterations': 'int', 'p': 'double'},
        ),
        CustomOp(
            'TopKRouter',
            ('logits',),
            {'k': 'int', 'renormalize': 'int', 'output': 'string', 'capacity': 'int', 'sinkhorn_iterations': 'int'},
        ),
        CustomOp(
            'ExpertChoiceRouter',
            ('logits',),
            {'capacity': 'int', 'strength': 'double', 'iterations': 'int', 'p': 'double'},
        ),
        CustomOp(
            'ReSOMMaps',
            ('inputs', 'codebooks', 'matrix', 'labels'),
            {
                'grids': 'ints',
                'distance': 'string',
                'source': 'string',
                'combine': 'string',
                'iterations': 'int',
                'output': 'string',
                'betas': 'doubles',
            },
            lists=('inputs', 'codebooks', 'labels'),
        ),
        CustomOp(
            'SoftTopKRouter',
            ('logits',),
            {
                'k': 'int',
                'strength': 'double',
                'k_max': 'int',
                'mask_on': 'string',
                'renormalize': 'int',
                'output': 'string',
                'iterations': 'int',
                'p': 'double',
            },
        ),
        CustomOp('SparseMoE', ('x', 'logits', 'weight', 'bias'), {'k': 'int', 'renormalize': 'int'}),
        CustomOp(
            'SparseMoEFFN', ('x', 'logits', 'weight', 'bias', 'weight2', 'bias2'), {'k': 'int', 'renormalize': 'int'}
        ),
        CustomOp('SoftMoE', ('x', 'slots', 'weight', 'bias'), {}),
    )
}
