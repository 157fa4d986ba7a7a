"""The model's inputs (ports) and the kinds that move values without arithmetic: padding, cropping,
upsampling, reshape, transpose, concatenation and io_stream's fan-out. Each keeps its input type."""

from __future__ import annotations

from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, RESULT_ONLY, KindRecord, Reference, ShapeRule
from hls4ml.model.precision_rules import copy_input, keep_config, merge_types
from hls4ml.model.reference import array_ops, merge

SPATIAL_2D = ('in_height', 'in_width', 'n_chan')


def _copy(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    """Reshape and Clone: the values, each written into the result type."""
    return array_ops.copy(inputs[0], layer.types['result'])


def move(name: str, shape: ShapeRule, reference: Reference) -> KindRecord:
    """A kind that moves values without arithmetic: it keeps its input type."""
    return KindRecord(
        name,
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shape,
        precision_rule=copy_input,
        reference=reference,
    )


def edge_move(name: str, rank: int, kernel: str, arguments: tuple[str, ...]) -> KindRecord:
    """Padding, cropping and upsampling: `array_ops.<kernel>(x, *attributes[arguments], result)`."""

    def run(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        values = (layer.attributes[argument] for argument in arguments)
        return getattr(array_ops, kernel)(inputs[0], *values, layer.types['result'])

    return move(name, shapes.spatial_shape('n_chan', rank), run)


class Sources:
    """The model's inputs (`Kind` inherits them)."""

    # a port: nothing is computed, lowered or estimated; the caller gives its values
    INPUT = KindRecord(
        'Input',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shapes.input_shape,
        precision_rule=keep_config,
        reference=None,
    )


class Moves:
    """The kinds that move values (`Kind` inherits them)."""

    ZERO_PADDING1D = edge_move('ZeroPadding1D', 1, 'zeropad1d_cl', ('in_width', 'n_chan', 'pad_left', 'pad_right'))
    ZERO_PADDING2D = edge_move(
        'ZeroPadding2D', 2, 'zeropad2d_cl', (*SPATIAL_2D, 'pad_top', 'pad_bottom', 'pad_left', 'pad_right')
    )
    CROPPING1D = edge_move('Cropping1D', 1, 'cropping1d_cl', ('in_width', 'n_chan', 'crop_left', 'crop_right'))
    CROPPING2D = edge_move(
        'Cropping2D', 2, 'cropping2d_cl', (*SPATIAL_2D, 'crop_top', 'crop_bottom', 'crop_left', 'crop_right')
    )
    # UpSampling1D (nearest); 'Resize' as in hls4ml
    RESIZE = edge_move('Resize', 1, 'upsampling1d_cl', ('in_width', 'n_chan', 'width_factor'))
    RESIZE2D = edge_move('Resize2D', 2, 'upsampling2d_cl', (*SPATIAL_2D, 'height_factor', 'width_factor'))
    RESHAPE = move('Reshape', shapes.reshape_shape, _copy)

    # ---- Transpose: axes permuted by attribute perm --------------------------------------------------

    @staticmethod
    def _transpose_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        shape = graph.tensors[layer.inputs[0]].shape
        return array_ops.transpose(inputs[0], shape, tuple(layer.attributes['perm']), layer.types['result'])

    TRANSPOSE = move('Transpose', shapes.transpose_shape, _transpose_reference)

    # ---- Concatenate: two inputs joined along attribute axis; the result holds both types -----------

    @staticmethod
    def _concatenate_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        first, second = inputs
        result = layer.types['result']
        shapes_in = [graph.tensors[name].shape for name in layer.inputs]
        if len(shapes_in[0]) == 1:
            return merge.concatenate1d(first, second, result)
        function = merge.concatenate2d if len(shapes_in[0]) == 2 else merge.concatenate3d
        return function(first, second, shapes_in[0], shapes_in[1], layer.attributes['axis'], result)  # type: ignore[arg-type]

    CONCATENATE = KindRecord(
        'Concatenate',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shapes.concatenate_shape,
        precision_rule=merge_types,
        reference=_concatenate_reference,
    )

    # io_stream fan-out, inserted by a pass: its type is its input's, set by the pass
    CLONE = KindRecord(
        'Clone',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shapes.same_shape,
        precision_rule=keep_config,
        reference=_copy,
    )
