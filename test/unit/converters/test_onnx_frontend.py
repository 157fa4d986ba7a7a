"""The ONNX / QONNX frontend without compiling: every op's IR computes what onnxruntime computes
(through the reference interpreter), QONNX quantizers become exact types that reproduce qonnx's
execution bit for bit, and every problem is reported with the node's name, op and place."""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import pytest
from onnx_graphs import OnnxGraph, channels_last, run_onnxruntime, run_qonnx

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.onnx import parse_onnx_model
from hls4ml.converters.onnx import parser as onnx_parser
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.types import FixedPrecisionType

WIDE = {'Model': {'Precision': 'fixed<32,12>'}}


def convert(model, tmp_path, hls_config: dict | None = None, **options) -> ModelGraph:
    return hls4ml.converters.convert_from_onnx_model(
        model, hls_config=hls_config or WIDE, output_dir=str(tmp_path / 'prj'), backend='Vitis', **options
    )


def outputs_of(hls_model: ModelGraph, x: np.ndarray) -> np.ndarray:
    (result,), _ = interpret(hls_model, x)
    return result.to_double()


def layers(model) -> dict:
    graph, _ = parse_onnx_model(model)
    return graph.layers


def kinds(model) -> list[str]:
    return [layer.kind for layer in layers(model).values()]


# ---- every standard op against onnxruntime ----------------------------------------------------------
def _dense_ops(g: OnnxGraph) -> str:
    hidden = g.node('Gemm', ['x', g.weights(5, 4), g.weights(5)], transB=1, alpha=0.5, beta=2.0)
    return g.node('Add', [g.node('MatMul', [hidden, g.weights(5, 3)]), g.weights(3)])


def _conv(g: OnnxGraph, **attributes) -> str:
    return g.node('Conv', ['x', g.weights(3, 2, 3, 2), g.weights(3)], **attributes)


def _activations(g: OnnxGraph) -> str:
    y = g.node('LeakyRelu', ['x'])
    y = g.node('Elu', [y], alpha=0.5)
    y = g.node('PRelu', [g.node('Relu', [y]), g.constant([[[0.25]], [[-0.5]]])])
    return g.node('Selu', [y])


def _table_activations(g: OnnxGraph) -> str:
    y = g.node('HardSigmoid', [g.node('Softsign', ['x'])], alpha=0.3, beta=0.4)
    y = g.node('Softplus', [g.node('Tanh', [g.node('Sigmoid', [y])])])
    return g.node('Softmax', [g.node('Flatten', [g.node('Elu', [y])])])


def _arithmetic(g: OnnxGraph) -> str:
    y = g.node('Mul', ['x', g.constant(g.rng.normal(size=(1, 2, 1, 1)))])
    y = g.node('Sub', [g.constant(0.5), g.node('Add', [y, g.constant(g.rng.normal(size=(5, 4)))])])
    y = g.node('Div', [y, g.constant([[[2.0]], [[-4.0]]])])
    both = g.node('Max', [g.node('Sub', [y, 'x']), g.node('Mul', [y, 'x'])])
    return g.node('Min', [both, g.node('Add', [both, y])])


def _variadic(g: OnnxGraph) -> str:
    """Sum, Mean, Max, Min and Concat of three or four tensors."""
    parts = ['x', g.node('Relu', ['x']), g.node('Mul', ['x', g.constant(-0.5)]), g.node('Sigmoid', ['x'])]
    joined = [
        g.node('Sum', parts[:3]),
        g.node('Mean', parts[:3]),
        g.node('Mean', parts),
        g.node('Max', parts[1:]),
        g.node('Min', parts),
    ]
    return g.node('Concat', joined, axis=1)


def _gathers(g: OnnxGraph) -> str:
    """Slices (steps, negative bounds, the batch axis taken whole) and reductions of a (3, 5, 4) tensor."""
    big = 2**63 - 1
    sliced = g.node('Slice', ['x', g.ints([1, -1]), g.ints([3, -5]), g.ints([1, 2]), g.ints([1, -2])])
    whole_batch = g.node('Slice', ['x', g.ints([0, 1]), g.ints([big, big]), g.ints([0, 3]), g.ints([1, 2])])
    parts = [
        g.node('Flatten', [sliced]),
        g.node('Flatten', [whole_batch]),
        g.node('ReduceSum', ['x', g.ints([2])], keepdims=0),
        g.node('Flatten', [g.node('ReduceMean', ['x'], axes=[1, 3])]),
        g.node('ReduceMax', ['x'], axes=[-1], keepdims=0),
        g.node('Flatten', [g.node('ReduceMin', ['x'], axes=[1, 2, 3])]),
    ]
    flat = [parts[0], parts[1], g.node('Flatten', [parts[2]]), parts[3], g.node('Flatten', [parts[4]]), parts[5]]
    return g.node('Concat', flat, axis=1)


def _pools(g: OnnxGraph) -> str:
    left = g.node('MaxPool', ['x'], kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1])
    right = g.node('AveragePool', ['x'], kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1])
    counted = g.node('AveragePool', ['x'], kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1], count_include_pad=1)
    joined = g.node('Concat', [left, right, counted], axis=1)
    return g.node('Concat', [g.node('GlobalAveragePool', [joined]), g.node('GlobalMaxPool', [joined])], axis=-3)


def _moves(g: OnnxGraph) -> str:
    y = g.node('Transpose', ['x'], perm=[0, 2, 3, 1])
    y = g.node('Reshape', [y, g.constant([0, -1, 2], dtype=np.int64)])
    y = g.node('Unsqueeze', [g.node('Identity', [y]), g.constant([1], dtype=np.int64)])
    y = g.node('Squeeze', [g.node('Dropout', [y]), g.constant([1], dtype=np.int64)])
    y = g.node(
        'Pad',
        [
            g.node('Reshape', [y, g.constant([-1, 2, 5, 4], dtype=np.int64)]),
            g.constant([0, 0, 1, 0, 0, 0, 2, 1], dtype=np.int64),
        ],
    )
    return g.node('Conv', [y, g.weights(2, 1, 3, 3)], group=2, auto_pad='SAME_LOWER', strides=[2, 2])


STANDARD_CASES = {  # name -> (builder of the output, input shape, opset)
    'dense': (_dense_ops, (4,), 13),
    'conv_pads_strides': (lambda g: _conv(g, pads=[1, 0, 0, 2], strides=[2, 1]), (2, 6, 5), 13),
    'conv_same_upper': (lambda g: _conv(g, auto_pad='SAME_UPPER', strides=[2, 2]), (2, 6, 5), 13),
    'conv_same_lower': (lambda g: _conv(g, auto_pad='SAME_LOWER'), (2, 5, 4), 13),
    'conv1d_valid': (lambda g: g.node('Conv', ['x', g.weights(4, 3, 2)], auto_pad='VALID', strides=[2]), (3, 9), 13),
    'batchnorm': (
        lambda g: g.node('BatchNormalization', ['x', *(g.constant(g.rng.uniform(0.5, 2, 2)) for _ in range(4))]),
        (2, 3, 4),
        13,
    ),
    'activations': (_activations, (2, 3, 4), 13),
    'hard_swish_and_clip': (
        lambda g: g.node('Clip', [g.node('HardSwish', ['x']), g.constant(0.0), g.constant(1.5)]),
        (2, 3, 4),
        14,
    ),
    'variadic_merges': (_variadic, (2, 3), 13),
    'slices_and_reductions': (_gathers, (3, 5, 4), 13),
    'resize_nearest': (
        lambda g: g.node(
            'Resize',
            ['x', '', g.constant([1, 1, 2.0, 1.5])],
            mode='nearest',
            coordinate_transformation_mode='asymmetric',
            nearest_mode='floor',
        ),
        (2, 3, 4),
        13,
    ),
    'resize_linear': (
        lambda g: g.node('Resize', ['x', '', g.constant([1, 1, 2.0, 1.5])], mode='linear'),
        (2, 3, 4),
        13,
    ),
    'resize_linear_align_corners': (
        lambda g: g.node(
            'Resize',
            ['x', '', '', g.ints([16, 2, 5, 7])],
            mode='linear',
            coordinate_transformation_mode='align_corners',
        ),
        (2, 3, 4),
        13,
    ),
    'clip_opset_6': (lambda g: g.node('Clip', ['x'], min=0.0, max=0.75), (5,), 6),
    'table_activations': (_table_activations, (2, 2, 3), 13),
    'arithmetic': (_arithmetic, (2, 5, 4), 13),
    'pools': (_pools, (2, 7, 5), 13),
    'moves': (_moves, (5, 4, 2), 13),
    'softmax_opset_11': (lambda g: g.node('Softmax', [g.node('Relu', ['x'])]), (6,), 11),
}


@pytest.mark.parametrize('case', sorted(STANDARD_CASES))
def test_ops_compute_what_onnxruntime_computes(case: str, tmp_path) -> None:
    make, shape, opset = STANDARD_CASES[case]
    g = OnnxGraph(opset=opset, seed=3)
    model = g.model({'x': shape}, [make(g)])
    x = np.random.default_rng(4).uniform(-2, 2, (16, *shape)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {'x': x})
    np.testing.assert_allclose(outputs_of(convert(model, tmp_path), x), channels_last(expected), atol=0.02)


@pytest.mark.filterwarnings('ignore::DeprecationWarning')  # the TorchScript exporter
def test_torch_export_converts_and_matches(tmp_path) -> None:
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(2, 3, 3, padding=1),
        torch.nn.BatchNorm2d(3),
        torch.nn.ReLU(),
        torch.nn.AvgPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(12, 4),
    ).eval()
    buffer = io.BytesIO()
    example = torch.zeros(1, 2, 4, 4)
    torch.onnx.export(net, (example,), buffer, input_names=['x'], dynamo=False, dynamic_axes={'x': {0: 'N'}})
    model = onnx.load_from_string(buffer.getvalue())
    x = np.random.default_rng(0).uniform(-1, 1, (8, 2, 4, 4)).astype(np.float32)
    with torch.no_grad():
        expected = net(torch.tensor(x)).numpy()
    np.testing.assert_allclose(outputs_of(convert(model, tmp_path), x), expected, atol=1e-3)


# ---- structure, names, inputs ------------------------------------------------------------------------
def test_matmul_and_the_add_of_its_bias_become_one_dense() -> None:
    g = OnnxGraph()
    model = g.model({'x': (4,)}, [g.node('Add', [g.constant(np.ones(3)), g.node('MatMul', ['x', g.weights(4, 3)])])])
    (dense,) = [layer for layer in layers(model).values() if layer.kind != 'Input']
    assert dense.kind == 'Dense'
    np.testing.assert_array_equal(dense.weights['bias'], np.ones(3))


def test_unnamed_and_repeated_node_names_become_op_type_names() -> None:
    g = OnnxGraph()
    relu = g.node('Relu', ['x'], name='same')
    model = g.model({'x': (4,)}, [g.node('Sigmoid', [g.node('Relu', [relu], name='same')])])
    model.graph.node[2].name = ''
    _, origin = parse_onnx_model(model)
    assert sorted(origin.values()) == ['Relu_0', 'Sigmoid_0', 'same', 'x']


def test_nodes_that_reach_no_output_are_dropped() -> None:
    g = OnnxGraph()
    g.node('Erf', [g.node('Relu', ['x'], name='dead')])  # unsupported, but never used
    assert list(layers(g.model({'x': (4,)}, [g.node('Sigmoid', ['x'], name='live')]))) == ['x', 'live']


@pytest.mark.parametrize('form', ['proto', 'wrapper', 'path'])
def test_model_forms_are_accepted_and_never_changed(form: str, tmp_path) -> None:
    from qonnx.core.modelwrapper import ModelWrapper

    g = OnnxGraph()
    model = g.model({'x': (4,)}, [g.node('Gemm', [g.quant('x', 0.25, 4), g.quant(g.weights(4, 2), 0.5, 3)])])
    path = tmp_path / 'model.onnx'
    onnx.save(model, path)
    given = {'proto': lambda: model, 'wrapper': lambda: ModelWrapper(model), 'path': lambda: str(path)}[form]()
    before = model.SerializeToString()  # after wrapping: qonnx's ModelWrapper adds value infos to the proto
    assert kinds(given) == ['Input', 'Dense']
    assert model.SerializeToString() == before


def test_outputs_are_channels_last_unless_transposed(tmp_path) -> None:
    g = OnnxGraph()
    model = g.model({'x': (2, 3, 4)}, [g.node('Conv', ['x', g.weights(3, 2, 1, 1)])])
    x = np.random.default_rng(0).uniform(-1, 1, (4, 2, 3, 4)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {'x': x})
    np.testing.assert_allclose(outputs_of(convert(model, tmp_path), x), channels_last(expected), atol=1e-3)
    transposed = convert(model, tmp_path, hls_config={**WIDE, 'Model': {**WIDE['Model'], 'TransposeOutputs': True}})
    np.testing.assert_allclose(outputs_of(transposed, x), expected.reshape(4, -1), atol=1e-3)


def test_several_inputs_and_outputs_keep_the_model_order(tmp_path) -> None:
    g = OnnxGraph()
    joined = g.node('Concat', [g.node('Relu', ['x']), 'z'], axis=1)
    model = g.model({'x': (4,), 'z': (3,)}, [g.node('Gemm', [joined, g.weights(7, 2)]), g.node('Sigmoid', ['z'])])
    x, z = (np.random.default_rng(5).uniform(-1, 1, (6, n)).astype(np.float32) for n in (4, 3))
    outputs, _ = interpret(convert(model, tmp_path), [x, z])
    for mine, expected in zip(outputs, run_onnxruntime(model, {'x': x, 'z': z}), strict=True):
        np.testing.assert_allclose(mine.to_double(), expected, atol=0.01)  # the sigmoid is a table


def test_internal_layout_takes_inputs_channels_last(tmp_path) -> None:
    g = OnnxGraph()
    model = g.model(
        {'x': (2, 5, 4)}, [g.node('MaxPool', [g.node('Conv', ['x', g.weights(3, 2, 2, 2)])], kernel_shape=[2, 2])]
    )
    x = np.random.default_rng(6).uniform(-1, 1, (4, 2, 5, 4)).astype(np.float32)
    internal = convert(model, tmp_path, hls_config={'Model': {**WIDE['Model'], 'ChannelsLastConversion': 'internal'}})
    assert [layer.kind for layer in internal.graph.layers.values()] == ['Input', 'Conv2D', 'Pooling2D']
    (expected,) = run_onnxruntime(model, {'x': x})
    np.testing.assert_allclose(outputs_of(internal, np.moveaxis(x, 1, -1)), channels_last(expected), atol=1e-3)


# ---- errors ------------------------------------------------------------------------------------------
def test_every_unsupported_node_is_listed_in_one_error() -> None:
    g = OnnxGraph()
    y = g.node('Erf', [g.node('Relu', ['x'])], name='erf')
    y = g.node('MyOp', [y], name='mine', domain='my.domain')
    model = g.model({'x': (4,)}, [g.node('Gelu', [y], name='gelu', domain='com.microsoft')])
    with pytest.raises(ConversionError, match=r'3 unsupported ONNX node') as error:
        parse_onnx_model(model)
    for text in ("'erf' (Erf, node 1)", "'mine' (MyOp in domain 'my.domain', node 2)", "'gelu' (Gelu", 'Conv, '):
        assert text in str(error.value)


def test_every_unsupported_setting_is_collected_into_one_error() -> None:
    g = OnnxGraph()
    image = g.node('MaxPool', ['x'], name='dilated', kernel_shape=[2, 2], dilations=[2, 2])
    image = g.node('Conv', [image, g.weights(4, 2, 1, 1)], name='grouped', group=2)
    flat = g.node('Flatten', [g.node('Relu', [image])])
    model = g.model({'x': (2, 7, 7)}, [g.node('Gemm', [flat, g.weights(1, 3)], name='fc', transA=1)], batch=1)
    with pytest.raises(ConversionError, match=r'3 problem') as error:
        parse_onnx_model(model)
    for text in ("'dilated' (MaxPool, node 0): dilations", "'grouped' (Conv, node 1): a kernel", "'fc' (Gemm, node 4)"):
        assert text in str(error.value)


@pytest.mark.parametrize(
    'make, message',
    [
        (lambda g: g.node('Reshape', ['x', g.constant([2, 4], dtype=np.int64)]), 'across the batch axis'),
        (lambda g: g.node('Transpose', ['x'], perm=[1, 0]), 'moves the batch axis'),
        (lambda g: g.node('Flatten', ['x'], axis=0), 'mixes the batch axis'),
        (lambda g: g.node('Softmax', ['x'], axis=0), 'batch axis'),
        (lambda g: g.node('Selu', ['x'], alpha=2.0), 'only the default'),
        (lambda g: g.node('Div', [g.constant(2.0), 'x']), 'a reciprocal'),
        (lambda g: g.node('Max', ['x', g.constant(0.0)]), 'Max of a tensor and a constant'),
        (lambda g: g.node('Div', ['x', 'x']), 'division of two tensors'),
    ],
)
def test_refused_settings_say_why(make, message: str) -> None:
    g = OnnxGraph()
    model = g.model({'x': (8,)}, [make(g)], batch=1)
    with pytest.raises(ConversionError, match=message):
        parse_onnx_model(model)


def test_softmax_of_opset_11_over_an_image_is_refused() -> None:
    g = OnnxGraph(opset=11)
    with pytest.raises(ConversionError, match='opset 13 or later'):
        parse_onnx_model(g.model({'x': (2, 3, 3)}, [g.node('Softmax', ['x'])]))


def test_a_second_output_that_is_read_is_refused() -> None:
    g = OnnxGraph()
    g.nodes.append(onnx.helper.make_node('MaxPool', ['x'], ['pooled', 'indices'], name='pool', kernel_shape=[2, 2]))
    model = g.model({'x': (1, 4, 4)}, ['pooled', 'indices'])
    with pytest.raises(ConversionError, match="output 'indices' is read"):
        parse_onnx_model(model)


def test_a_misconverted_shape_fails_loudly(monkeypatch) -> None:
    monkeypatch.setitem(
        onnx_parser.HANDLERS, 'Relu', lambda step: step.builder.reshape(step.origin, step.tensor(0), (2, 4))
    )
    g = OnnxGraph()
    with pytest.raises(ConversionError, match=r'internal error.*\(2, 4\).*ONNX infers \(8,\)'):
        parse_onnx_model(g.model({'x': (8,)}, [g.node('Relu', ['x'])]))


def test_channels_last_off_refuses_convolutions() -> None:
    g = OnnxGraph()
    model = g.model({'x': (2, 4, 4)}, [g.node('Conv', ['x', g.weights(3, 2, 3, 3)], name='conv')])
    with pytest.raises(ConversionError, match="'conv'.*channels_last_conversion is 'off'"):
        parse_onnx_model(model, channels_last_conversion='off')


# ---- QONNX: exact types ------------------------------------------------------------------------------
def _quantized_relu(**quant) -> onnx.ModelProto:
    g = OnnxGraph()
    return g.model({'x': (16,)}, [g.quant(g.node('Relu', ['x'], name='relu'), **quant)], batch=64)


@pytest.mark.parametrize(
    'quant, expected',
    [
        ({'scale': 0.25, 'bits': 4, 'signed': 0}, FixedPrecisionType(4, 2, False, 'RND_CONV', 'SAT')),
        ({'scale': 0.125, 'bits': 5, 'narrow': 1}, FixedPrecisionType(5, 2, True, 'RND_CONV', 'SAT_SYM')),
        ({'scale': 4.0, 'bits': 3, 'rounding': 'FLOOR'}, FixedPrecisionType(3, 5, True, 'TRN', 'SAT')),
        ({'scale': 0.5, 'bits': 6, 'rounding': 'DOWN'}, FixedPrecisionType(6, 5, True, 'TRN_ZERO', 'SAT')),
        ({'scale': 0.5, 'bits': 6, 'rounding': 'HALF_UP'}, FixedPrecisionType(6, 5, True, 'RND_INF', 'SAT')),
        ({'scale': 0.5, 'bits': 6, 'rounding': 'HALF_DOWN'}, FixedPrecisionType(6, 5, True, 'RND_ZERO', 'SAT')),
    ],
)
def test_quant_of_a_tensor_is_its_exact_type_and_matches_qonnx(quant: dict, expected, tmp_path) -> None:
    model = _quantized_relu(**quant)
    relu = layers(model)['relu']
    assert relu.types['result'] == expected  # the quantizer folded into the ReLU
    x = (np.random.default_rng(1).integers(-80, 80, (64, 16)) / 16).astype(np.float32)  # many ties
    (expected_values,) = run_qonnx(model, {'x': x})
    np.testing.assert_array_equal(outputs_of(convert(model, tmp_path), x), expected_values)


def test_quant_of_an_input_becomes_the_input_type() -> None:
    g = OnnxGraph()
    model = g.model({'x': (4,)}, [g.node('Relu', [g.quant('x', 0.5, 6)])])
    assert layers(model)['x'].types['result'] == FixedPrecisionType(6, 5, True, 'RND_CONV', 'SAT')


@pytest.mark.parametrize(
    'quant, message',
    [
        ({'scale': 0.25, 'bits': 4, 'rounding': 'UP'}, "'UP' has no fixed-point"),
        ({'scale': 0.25, 'bits': 4, 'signed': 0, 'narrow': 1}, 'narrow unsigned'),
        ({'scale': 0.25, 'bits': 2.5}, 'whole number of bits'),
    ],
)
def test_quantizers_without_a_fixed_point_type_are_refused(quant: dict, message: str) -> None:
    """Float scales, zero points, per-channel scales and CEIL convert in the integer domain
    (test_qonnx_float_scales.py); these have no fixed-point form at all."""
    with pytest.raises(ConversionError, match=message):
        parse_onnx_model(_quantized_relu(**quant))


@pytest.mark.parametrize(
    'weight_quant, expected',
    [
        ({'scale': 0.125, 'bits': 4, 'narrow': 1}, FixedPrecisionType(4, 1, True)),
        ({'scale': 2.0, 'bits': 3, 'signed': 0}, FixedPrecisionType(3, 4, False)),
        ({'scale': np.array([[0.5], [0.125], [2.0]]), 'bits': 4}, FixedPrecisionType(8, 5, True)),
        ({'scale': 0.25, 'bits': 1}, FixedPrecisionType(2, 0, True)),  # 1-bit signed: -0.25 or +0.25
    ],
)
def test_quantized_weights_get_a_type_that_holds_them_exactly(weight_quant: dict, expected, tmp_path) -> None:
    g = OnnxGraph()
    weights = g.quant(g.weights(3, 5, scale=2.0), **weight_quant)
    model = g.model({'x': (5,)}, [g.node('Gemm', [g.quant('x', 0.25, 6), weights], name='fc', transB=1)], batch=32)
    fc = layers(model)['fc']
    assert fc.types['weight'] == expected
    x = np.random.default_rng(2).uniform(-4, 4, (32, 5)).astype(np.float32)
    (expected_values,) = run_qonnx(model, {'x': x})
    np.testing.assert_array_equal(outputs_of(convert(model, tmp_path), x), expected_values)


def test_bipolar_quantizers_of_weights_and_tensors() -> None:
    g = OnnxGraph()
    hidden = g.node('MatMul', [g.quant('x', 0.5, 4), g.bipolar(g.weights(4, 6))], name='fc')
    model = g.model({'x': (4,)}, [g.bipolar(g.bipolar(hidden, name='signs'), scale=0.5, name='halves')])
    parsed = layers(model)
    assert parsed['fc'].types['weight'] == FixedPrecisionType(2, 2, True)
    assert set(np.unique(parsed['fc'].weights['weight'])) == {-1.0, 1.0}
    assert parsed['signs'].attributes['activation'] == 'bipolar'
    assert parsed['halves_scale'].kind == 'BatchNormalization'


def test_trunc_after_an_average_pool_is_exact(tmp_path) -> None:
    """Brevitas' TruncAvgPool: the pool's types come from what the Trunc declares about its input."""
    g = OnnxGraph()
    pooled = g.node('AveragePool', [g.quant('x', 0.125, 4)], name='pool', kernel_shape=[2, 2], strides=[2, 2])
    model = g.model({'x': (2, 4, 4)}, [g.trunc(pooled, 0.125 / 4, 6, 0.25, 3, rounding='FLOOR')], batch=32)
    pool = layers(model)['pool']
    assert pool.types == {'result': FixedPrecisionType(6, 1, True), 'accum': FixedPrecisionType(8, 3, True)}
    x = np.random.default_rng(3).uniform(-1.2, 1.2, (32, 2, 4, 4)).astype(np.float32)
    (expected,) = run_qonnx(model, {'x': x})
    np.testing.assert_array_equal(outputs_of(convert(model, tmp_path), x), channels_last(expected))


def test_trunc_of_qonnx_opset_1_is_refused() -> None:
    g = OnnxGraph(qonnx_opset=1)
    g.nodes.append(
        onnx.helper.make_node(
            'Trunc',
            ['x', *(g.constant(value) for value in (0.25, 0.0, 8.0, 4.0))],
            ['y'],
            name='trunc',
            domain='qonnx.custom_op.general',
        )
    )
    with warnings.catch_warnings(), pytest.raises(ConversionError, match='opset 1'):
        warnings.simplefilter('ignore')
        parse_onnx_model(g.model({'x': (4,)}, ['y']))
