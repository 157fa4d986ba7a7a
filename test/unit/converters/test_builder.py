"""GraphBuilder: channels-first operations become channels-last IR layers, with a Transpose only where
an operation needs another layout, and the reference interpreter agrees with numpy on the result."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.converters import _hls_section
from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation, Value, channels_last_perm
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.types import FixedPrecisionType, parse_precision
from hls4ml.utils.config import create_config


def o(name: str, op: str = 'op') -> Origin:
    return Origin(name, op)


def kinds(builder: GraphBuilder) -> list[str]:
    return [layer.kind for layer in builder.graph.layers.values()]


def model_of(builder: GraphBuilder, tmp_path, hls_config: dict | None = None) -> ModelGraph:
    graph, origin = builder.finish()
    config = create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis')
    config['HLSConfig'] = _hls_section(hls_config or {'Model': {'Precision': 'fixed<32,12>'}})
    return ModelGraph(config, graph, origin)


def test_channels_last_perm_moves_the_first_axis_last():
    assert channels_last_perm(3) == (1, 2, 0)
    assert channels_last_perm(2) == (1, 0)
    assert channels_last_perm(1) == (0,)


@pytest.mark.parametrize('mode, first', [('full', ['Input', 'Transpose', 'Conv2D']), ('internal', ['Input', 'Conv2D'])])
def test_inputs_are_transposed_only_in_full_mode(mode, first):
    builder = GraphBuilder(mode)
    x = builder.input(o('x', 'input'), (2, 5, 4))
    y = builder.conv(o('conv', 'Conv2d'), x, np.ones((3, 2, 3, 3)), None, (1, 1), [(1, 1), (1, 1)])
    builder.output(y, o('out'))
    assert kinds(builder)[: len(first)] == first
    assert builder.graph.tensors[y.tensor].shape == (5, 4, 3)
    assert y.shape == (3, 5, 4)


def test_off_mode_refuses_convolutions_with_a_hint():
    builder = GraphBuilder('off')
    x = builder.input(o('x', 'input'), (2, 5, 4))
    with pytest.raises(UnsupportedOperation, match=r"'conv' \(Conv2d\).*channels_last_conversion is 'off'"):
        builder.conv(o('conv', 'Conv2d'), x, np.ones((3, 2, 3, 3)), None, (1, 1), [(0, 0), (0, 0)])


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="channels_last_conversion must be one of full, internal, off, got 'yes'"):
        GraphBuilder('yes')


def test_transposes_move_no_data_until_a_layout_is_needed():
    builder = GraphBuilder('internal')
    x = builder.input(o('x', 'input'), (3, 4, 5))  # IR (4, 5, 3)
    nhwc = builder.transpose(o('p1'), x, (1, 2, 0))  # framework (4, 5, 3): already the IR order
    back = builder.transpose(o('p2'), nhwc, (2, 0, 1))  # framework (3, 4, 5) again
    assert nhwc.tensor == back.tensor == x.tensor and nhwc.identity
    assert back.perm == x.perm
    y = builder.pool(o('pool', 'MaxPool2d'), back, 'max', (2, 2), (2, 2), [(0, 0), (0, 0)])
    assert kinds(builder) == ['Input', 'Pooling2D']
    assert y.shape == (3, 2, 2)


def test_flatten_of_channels_last_tensor_transposes_back_to_channel_major(tmp_path):
    builder = GraphBuilder('internal')
    x = builder.input(o('x', 'input'), (2, 3, 2))
    flat = builder.flatten(o('flat', 'Flatten'), x)
    builder.output(flat, o('out'))
    assert kinds(builder) == ['Input', 'Transpose', 'Reshape']
    model = model_of(builder, tmp_path)
    data = np.arange(12, dtype=float).reshape(1, 2, 3, 2) / 16  # framework order (N, C, H, W)
    (result,), _ = interpret(model, data.transpose(0, 2, 3, 1).copy())  # 'internal': fed channels last
    np.testing.assert_array_equal(result.to_double().reshape(1, -1), data.reshape(1, -1))


def test_moving_only_unit_axes_is_a_reshape_and_a_flatten_after_it_needs_nothing_more():
    builder = GraphBuilder('full')
    x = builder.input(o('x', 'input'), (3, 4, 4))
    pooled = builder.global_pool(o('gap', 'AdaptiveAvgPool2d'), x, 'average', keepdims=True)
    assert pooled.shape == (3, 1, 1) and builder.graph.tensors[pooled.tensor].shape == (1, 1, 3)
    flat = builder.flatten(o('flat', 'Flatten'), pooled)
    assert kinds(builder) == ['Input', 'Transpose', 'GlobalPooling2D', 'Reshape']
    assert builder.graph.tensors[flat.tensor].shape == (3,)


def test_the_same_layout_is_made_once_per_tensor():
    builder = GraphBuilder('full')
    x = builder.input(o('x', 'input'), (2, 4, 4))
    for name in ('a', 'b'):
        builder.pool(o(name, 'MaxPool2d'), x, 'max', (2, 2), (2, 2), [(0, 0), (0, 0)])
    assert kinds(builder).count('Transpose') == 1


def test_outputs_follow_transpose_outputs():
    for transpose_outputs, ir_shape in ((False, (4, 4, 2)), (True, (2, 4, 4))):
        builder = GraphBuilder('internal', transpose_outputs=transpose_outputs)
        x = builder.input(o('x', 'input'), (2, 4, 4))
        builder.output(builder.activation(o('relu', 'ReLU'), x, 'relu'), o('out'))
        graph, _ = builder.finish()
        assert graph.tensors[graph.outputs[0]].shape == ir_shape


def test_constants_broadcast_in_framework_axes_and_follow_the_ir_layout():
    builder = GraphBuilder('internal')
    x = builder.input(o('x', 'input'), (2, 1, 3))  # IR (1, 3, 2)
    scale = np.array([10.0, 20.0]).reshape(2, 1, 1)  # per channel
    y = builder.affine(o('mul', 'mul'), x, scale, None)
    layer = builder.graph.layers[y.tensor]
    np.testing.assert_array_equal(layer.weights['scale'], [10, 20, 10, 20, 10, 20])
    with pytest.raises(UnsupportedOperation, match=r"'bad' \(op\): a constant of shape \(4,\) does not broadcast"):
        builder.affine(o('bad'), x, np.ones(4))


def test_concatenation_axis_follows_the_layout_and_chains_pairwise():
    builder = GraphBuilder('internal')
    a = builder.input(o('a', 'input'), (2, 3, 3))
    b = builder.input(o('b', 'input'), (1, 3, 3))
    c = builder.input(o('c', 'input'), (3, 3, 3))
    joined = builder.concat(o('cat', 'cat'), [a, b, c], axis=0)
    assert joined.shape == (6, 3, 3)
    layers = [layer for layer in builder.graph.layers.values() if layer.kind == 'Concatenate']
    assert [layer.attributes['axis'] for layer in layers] == [2, 2]
    assert builder.graph.tensors[joined.tensor].shape == (3, 3, 6)


def test_count_include_pad_average_pooling_pads_with_zeros_first(tmp_path):
    builder = GraphBuilder('internal')
    x = builder.input(o('x', 'input'), (1, 2, 2))
    y = builder.pool(o('pool', 'AvgPool2d'), x, 'average', (2, 2), (2, 2), [(1, 1), (1, 1)], count_include_pad=True)
    builder.output(y, o('out'))
    assert kinds(builder) == ['Input', 'ZeroPadding2D', 'Pooling2D']
    (result,), _ = interpret(model_of(builder, tmp_path), np.ones((1, 2, 2, 1)))
    np.testing.assert_array_equal(result.to_double(), np.full((1, 4), 0.25))


def test_ceil_mode_is_refused_only_when_it_changes_the_size():
    builder = GraphBuilder('full')
    x = builder.input(o('x', 'input'), (1, 4, 5))
    builder.pool(o('fits', 'MaxPool2d'), x, 'max', (2, 1), (2, 1), [(0, 0), (0, 0)], ceil_mode=True)
    with pytest.raises(UnsupportedOperation, match='ceil_mode=True changes the output size'):
        builder.pool(o('odd', 'MaxPool2d'), x, 'max', (2, 2), (2, 2), [(0, 0), (0, 0)], ceil_mode=True)


def test_grouped_and_dilated_kernels_are_written_into_a_plain_convolution():
    """groups=2: each filter reads its group's channels only; dilation 2: zeros between the taps."""
    builder = GraphBuilder('full')
    x = builder.input(o('x', 'input'), (4, 7, 7))
    grouped = builder.conv(o('g', 'Conv2d'), x, np.ones((4, 2, 3, 3)), None, (1, 1), [(0, 0), (0, 0)], groups=2)
    kernel = builder.graph.layers[grouped.tensor].weights['weight']  # (*window, in, out)
    assert kernel.shape == (3, 3, 4, 4)
    assert np.array_equal(kernel[1, 1], np.kron(np.eye(2), np.ones((2, 2))))
    dilated = builder.conv(o('d', 'Conv2d'), x, np.ones((4, 4, 2, 2)), None, (1, 1), [(0, 0), (0, 0)], dilations=(2, 3))
    kernel = builder.graph.layers[dilated.tensor].weights['weight']
    assert kernel.shape == (3, 4, 4, 4) and dilated.shape == (4, 5, 4)
    assert np.array_equal(kernel[:, :, 0, 0], [[1, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 1]])
    with pytest.raises(UnsupportedOperation, match=r'groups=3 does not fit 4 input'):
        builder.conv(o('bad', 'Conv2d'), x, np.ones((3, 1, 3, 3)), None, (1, 1), [(0, 0), (0, 0)], groups=3)


def test_a_quantizer_folds_into_a_dense_that_feeds_only_it():
    builder = GraphBuilder('full')
    x = builder.input(o('x', 'input'), (3,), precision=parse_precision('fixed<4,1>'))
    y = builder.dense(o('fc', 'Gemm'), x, np.ones((3, 2)) / 4, None)
    q = builder.quantize(o('q', 'Quant'), y, parse_precision('fixed<6,3,RND_CONV,SAT>'))
    builder.output(q, o('out'))
    graph, _ = builder.finish()
    assert [layer.kind for layer in graph.layers.values()] == ['Input', 'Dense']
    assert graph.layers['fc'].types['result'] == parse_precision('fixed<6,3,RND_CONV,SAT>')


def test_a_quantizer_after_a_shared_tensor_stays_a_linear_activation():
    builder = GraphBuilder('full')
    x = builder.input(o('x', 'input'), (3,))
    y = builder.dense(o('fc', 'Gemm'), x, np.ones((3, 3)), None)
    q = builder.quantize(o('q', 'Quant'), y, parse_precision('fixed<6,3,RND_CONV,SAT>'))
    builder.output(builder.merge(o('add', 'Add'), y, q, 'add'), o('out'))
    graph, _ = builder.finish()
    assert graph.layers['q'].kind == 'Activation' and graph.layers['q'].attributes['activation'] == 'linear'


def test_frontend_types_survive_auto_config_but_not_an_explicit_one(tmp_path):
    weight_type = FixedPrecisionType(4, 2)

    def build() -> GraphBuilder:
        builder = GraphBuilder('full')
        x = builder.input(o('x', 'input'), (2,))
        builder.output(builder.dense(o('fc', 'Gemm'), x, np.ones((2, 2)), None, weight=weight_type), o('out'))
        return builder

    auto = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'fc': {'Precision': {'weight': 'auto'}}}}
    assert model_of(build(), tmp_path, auto).graph.layers['fc'].types['weight'] == weight_type
    explicit = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'fc': {'Precision': {'weight': 'fixed<8,3>'}}}}
    assert model_of(build(), tmp_path, explicit).graph.layers['fc'].types['weight'] == parse_precision('fixed<8,3>')


def test_value_reports_its_ir_shape():
    value = Value('t', (3, 4, 5), (1, 2, 0))
    assert value.ir_shape == (4, 5, 3) and not value.identity and value.rank == 3
