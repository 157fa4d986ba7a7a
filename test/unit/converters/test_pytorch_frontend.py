"""The PyTorch frontend: fx nodes -> IR layers (kinds, names, layouts), what the result computes (the
reference interpreter at a wide precision against PyTorch eager) and the errors. Nothing is compiled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.pytorch import FUNCTIONS, parse_pytorch_model
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
WIDE = 'ap_fixed<32,12>'
ONES = torch.ones(4)


class Net(nn.Module):
    """A model whose forward is `function(self, x)`; `members` become its modules and buffers."""

    def __init__(self, function: Callable[..., Any], **members: Any) -> None:
        super().__init__()
        self.function = function
        for name, member in members.items():
            if isinstance(member, torch.Tensor) and not isinstance(member, nn.Parameter):
                self.register_buffer(name, member)
            else:
                setattr(self, name, member)

    def forward(self, x: torch.Tensor) -> Any:
        return self.function(self, x)


class Net2(Net):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
        return self.function(self, x, y)


def of(function: Callable[[torch.Tensor], Any]) -> Net:
    return Net(lambda self, x: function(x))


def randomized(norm: nn.Module) -> nn.Module:
    """A batch norm with trained-looking statistics."""
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for tensor, low, high in (
            (norm.running_mean, -0.5, 0.5),
            (norm.running_var, 0.5, 2.0),
            (norm.weight, 0.5, 1.5),
            (norm.bias, -0.3, 0.3),
        ):
            if tensor is not None:
                tensor.copy_(torch.rand(tensor.shape, generator=generator) * (high - low) + low)
    return norm


def convert(model: nn.Module, shape: Any, tmp_path, mode: str = 'full', transpose: bool = False) -> ModelGraph:
    config = hls4ml.utils.config_from_pytorch_model(
        model,
        shape,
        granularity='name',
        default_precision=WIDE,
        channels_last_conversion=mode,
        transpose_outputs=transpose,
    )
    return hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )


def samples(shapes: list[tuple[int, ...]], n: int = 16, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-3, 3, (n, *shape)).astype(np.float32) for shape in shapes]


def as_predicted(output: np.ndarray, channels_last: bool) -> np.ndarray:
    """A PyTorch output (batch first) in the layout predict() returns, flattened per sample."""
    if channels_last and output.ndim >= 3:
        output = np.moveaxis(output, 1, -1)
    return output.reshape(len(output), -1)


def assert_like_torch(
    model: nn.Module, shape: Any, tmp_path, atol: float = 0.02, mode: str = 'full', transpose: bool = False
) -> ModelGraph:
    hls_model = convert(model, shape, tmp_path, mode, transpose)
    shapes = shape if isinstance(shape, list) else [shape]
    x = samples(shapes)
    feed = [np.moveaxis(item, 1, -1) if mode == 'internal' and item.ndim >= 3 else item for item in x]
    outputs, _ = interpret(hls_model, feed if len(feed) > 1 else feed[0])
    with torch.no_grad():
        expected = model(*(torch.tensor(item) for item in x))
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    channels_last = mode != 'off' and not transpose
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got.to_double(), as_predicted(want.numpy(), channels_last), atol=atol)
    return hls_model


def kinds(hls_model: ModelGraph) -> list[str]:
    return [layer.kind for layer in hls_model.graph.layers.values()]


def refusal(model: nn.Module, shape: Any, mode: str = 'full') -> str:
    with pytest.raises(ConversionError) as caught:
        parse_pytorch_model(model, shape, mode)
    return str(caught.value)


# ---- element-wise operations on a vector -------------------------------------------------------------
VECTOR = (6,)
ELEMENTWISE = {
    'ReLU': nn.ReLU(),
    'F.relu': of(lambda x: F.relu(x, inplace=False)),
    'torch.relu': of(torch.relu),
    'Tensor.relu': of(lambda x: x.relu()),
    'LeakyReLU': nn.LeakyReLU(0.1),
    'F.leaky_relu': of(lambda x: F.leaky_relu(x, 0.3)),
    'ELU': nn.ELU(),
    'ELU_alpha': nn.ELU(0.5),
    'F.elu': of(lambda x: F.elu(x, alpha=0.7)),
    'SELU': nn.SELU(),
    'PReLU': nn.PReLU(),
    'PReLU_channels': nn.PReLU(6, 0.2),
    'Sigmoid': nn.Sigmoid(),
    'Tensor.sigmoid': of(lambda x: x.sigmoid()),
    'Tanh': nn.Tanh(),
    'torch.tanh': of(torch.tanh),
    'Softmax': nn.Softmax(dim=1),
    'F.softmax': of(lambda x: F.softmax(x, dim=-1)),
    'Tensor.softmax': of(lambda x: x.softmax(1)),
    'Softplus': nn.Softplus(),
    'Softsign': nn.Softsign(),
    'Hardsigmoid': nn.Hardsigmoid(),
    'Threshold': nn.Threshold(0.5, 0.0),
    'F.threshold': of(lambda x: F.threshold(x, -0.25, 0.0)),
    'Hardtanh': nn.Hardtanh(),
    'Hardtanh_0_4': nn.Hardtanh(0.0, 4.0),
    'Hardtanh_0_3': nn.Hardtanh(0.0, 3.0),
    'ReLU6': nn.ReLU6(),
    'F.relu6': of(lambda x: F.relu6(x)),
    'Hardswish': nn.Hardswish(),
    'F.hardswish': of(lambda x: F.hardswish(x)),
    'Dropout': nn.Dropout(0.4),
    'F.dropout': of(lambda x: F.dropout(x, 0.4, training=False)),
    'Identity': nn.Identity(),
    'x*c+c': of(lambda x: x * 2 + 1),
    'x-c': of(lambda x: x - 0.5),
    'c-x': of(lambda x: 1.5 - x),
    'x/c': of(lambda x: x / 4),
    'torch.add_alpha': of(lambda x: torch.add(1.0, x, alpha=-2)),
    'x*buffer+parameter': Net(
        lambda self, x: x * self.scale + self.shift, scale=torch.linspace(-1, 1, 6), shift=nn.Parameter(torch.ones(6))
    ),
}
TABLE_ACTIVATIONS = ('Sigmoid', 'Tensor.sigmoid', 'Tanh', 'torch.tanh', 'Softplus', 'Softsign', 'SELU')


PASS_THROUGH = ('Dropout', 'F.dropout', 'Identity')  # no layer left: the model alone is refused (nothing to compute)


@pytest.mark.parametrize('case', sorted(set(ELEMENTWISE) - set(PASS_THROUGH)))
def test_elementwise_operations_compute_what_torch_computes(case: str, tmp_path) -> None:
    atol = 0.04 if case in TABLE_ACTIVATIONS or 'ELU' in case or 'elu' in case else 0.01
    assert_like_torch(ELEMENTWISE[case], VECTOR, tmp_path, atol=atol)


@pytest.mark.parametrize(
    'case, kind, attributes',
    [
        ('ELU', 'ParametrizedActivation', {'activation': 'elu', 'activ_param': 1.0}),
        ('ELU_alpha', 'ParametrizedActivation', {'activation': 'elu', 'activ_param': 0.5}),
        ('LeakyReLU', 'ParametrizedActivation', {'activation': 'leaky_relu', 'activ_param': 0.1}),
        ('Threshold', 'ParametrizedActivation', {'activation': 'thresholded_relu', 'activ_param': 0.5}),
        ('Hardsigmoid', 'HardActivation', {'activation': 'hard_sigmoid', 'slope': 1 / 6, 'shift': 0.5}),
        ('Hardswish', 'HardActivation', {'activation': 'hard_swish', 'slope': 1 / 6, 'shift': 0.5}),
        ('F.relu6', 'ParametrizedActivation', {'activation': 'clipped_relu', 'activ_param': 6.0}),
        ('Hardtanh_0_3', 'ParametrizedActivation', {'activation': 'clipped_relu', 'activ_param': 3.0}),
        ('Softmax', 'Softmax', {'axis': -1}),
        ('F.relu', 'Activation', {'activation': 'relu'}),
        ('x/c', 'BatchNormalization', {}),
    ],
)
def test_operations_become_the_expected_layer(case: str, kind: str, attributes: dict) -> None:
    graph, _ = parse_pytorch_model(ELEMENTWISE[case], VECTOR)
    (layer,) = [layer for layer in graph.layers.values() if layer.kind != 'Input']
    assert layer.kind == kind and attributes.items() <= layer.attributes.items()


@pytest.mark.parametrize('case', PASS_THROUGH)
def test_dropout_and_identity_leave_no_layer(case: str, tmp_path) -> None:
    graph, _ = parse_pytorch_model(ELEMENTWISE[case], VECTOR)
    assert [layer.kind for layer in graph.layers.values()] == ['Input'] and graph.outputs == graph.inputs
    with pytest.raises(ValueError, match='is its input unchanged: there is nothing to convert'):
        convert(ELEMENTWISE[case], VECTOR, tmp_path)


# ---- matrix products, convolutions, pooling, batch normalization -------------------------------------
def _prelu_per_channel() -> nn.PReLU:
    prelu = nn.PReLU(2)
    prelu.weight.data = torch.tensor([0.1, 0.4])
    return prelu


def _linear_weight() -> nn.Parameter:
    return nn.Parameter(torch.linspace(-1, 1, 24).reshape(6, 4))


SPATIAL = {
    'Linear': (lambda: nn.Linear(6, 4), VECTOR),
    'Linear_no_bias': (lambda: nn.Linear(6, 4, bias=False), VECTOR),
    'F.linear': (lambda: Net(lambda self, x: F.linear(x, self.w.T, self.b), w=_linear_weight(), b=ONES), VECTOR),
    'matmul_constant': (lambda: Net(lambda self, x: x @ self.w + 1, w=_linear_weight()), VECTOR),
    'torch.matmul': (lambda: Net(lambda self, x: torch.matmul(x, self.w), w=_linear_weight()), VECTOR),
    'BatchNorm1d_vector': (lambda: randomized(nn.BatchNorm1d(6)), VECTOR),
    'BatchNorm1d_sequence': (lambda: randomized(nn.BatchNorm1d(2)), (2, 7)),
    'BatchNorm2d': (lambda: randomized(nn.BatchNorm2d(2, affine=False)), (2, 3, 4)),
    'Conv2d': (lambda: nn.Conv2d(2, 3, 3), (2, 6, 5)),
    'Conv2d_padding_tuple_stride': (lambda: nn.Conv2d(2, 3, (3, 2), stride=2, padding=(1, 2)), (2, 6, 5)),
    'Conv2d_same_even_kernel': (lambda: nn.Conv2d(2, 3, (2, 4), padding='same', bias=False), (2, 6, 5)),
    'Conv2d_valid': (lambda: nn.Conv2d(2, 3, 2, padding='valid'), (2, 4, 4)),
    'Conv2d_depthwise': (lambda: nn.Conv2d(2, 2, 3, padding=1, groups=2), (2, 5, 5)),
    'Conv1d_same': (lambda: nn.Conv1d(2, 3, 4, padding='same'), (2, 7)),
    'Conv1d_stride': (lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1), (2, 8)),
    'F.conv2d': (lambda: Net(lambda self, x: F.conv2d(x, self.w, padding=1), w=torch.randn(3, 2, 3, 3)), (2, 4, 4)),
    'MaxPool2d': (lambda: nn.MaxPool2d(2), (2, 6, 5)),
    'MaxPool2d_padding': (lambda: nn.MaxPool2d(3, stride=2, padding=1), (2, 6, 5)),
    'MaxPool1d': (lambda: nn.MaxPool1d(3, stride=1), (2, 7)),
    'F.max_pool2d': (lambda: of(lambda x: F.max_pool2d(x, 2, ceil_mode=True)), (2, 6, 4)),
    'AvgPool2d': (lambda: nn.AvgPool2d(2), (2, 6, 5)),
    'AvgPool2d_count_pad': (lambda: nn.AvgPool2d(3, stride=2, padding=1), (2, 6, 5)),
    'AvgPool2d_skip_pad': (lambda: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 6, 5)),
    'AvgPool1d': (lambda: nn.AvgPool1d(2), (2, 7)),
    'F.avg_pool1d': (lambda: of(lambda x: F.avg_pool1d(x, 3, 1, 1, count_include_pad=False)), (2, 7)),
    'AdaptiveAvgPool2d_1': (lambda: nn.AdaptiveAvgPool2d(1), (2, 4, 5)),
    'AdaptiveAvgPool2d_divisor': (lambda: nn.AdaptiveAvgPool2d((2, None)), (2, 4, 5)),
    'AdaptiveMaxPool1d_1': (lambda: nn.AdaptiveMaxPool1d(1), (2, 7)),
    'F.adaptive_max_pool2d': (lambda: of(lambda x: F.adaptive_max_pool2d(x, (1, 1))), (2, 4, 5)),
    'PReLU_per_channel': (_prelu_per_channel, (2, 3, 4)),
    'PReLU_after_conv': (lambda: nn.Sequential(nn.Conv2d(2, 2, 1), _prelu_per_channel()), (2, 3, 4)),
    'mean_spatial': (lambda: of(lambda x: x.mean((2, 3))), (2, 4, 5)),
    'torch.mean_keepdim': (lambda: of(lambda x: torch.mean(x, -1, keepdim=True)), (2, 7)),
    'ZeroPad2d': (lambda: nn.ZeroPad2d((1, 0, 2, 1)), (2, 3, 4)),
    'F.pad': (lambda: of(lambda x: F.pad(x, (2, 1))), (2, 5)),
}


@pytest.mark.parametrize('case', sorted(SPATIAL))
def test_layers_compute_what_torch_computes(case: str, tmp_path) -> None:
    torch.manual_seed(2)
    factory, shape = SPATIAL[case]
    assert_like_torch(factory(), shape, tmp_path, atol=0.002)


def test_batchnorm_is_folded_to_one_scale_and_bias_per_channel() -> None:
    norm = randomized(nn.BatchNorm2d(2, eps=0.1))
    graph, _ = parse_pytorch_model(norm, (2, 3, 1))
    (layer,) = [layer for layer in graph.layers.values() if layer.kind == 'BatchNormalization']
    scale = (norm.weight / torch.sqrt(norm.running_var + 0.1)).detach().numpy()
    bias = norm.bias.detach().numpy() - norm.running_mean.numpy() * scale
    # per element, in the input's layout: (2, 3, 1) channels first, as no layer before needs channels last
    np.testing.assert_allclose(layer.weights['scale'], np.repeat(scale, 3), rtol=1e-6)
    np.testing.assert_allclose(layer.weights['bias'], np.repeat(bias, 3), rtol=1e-5, atol=1e-7)


def test_linear_weight_is_transposed_to_inputs_by_outputs() -> None:
    linear = nn.Linear(6, 4)
    graph, origin = parse_pytorch_model(nn.Sequential(nn.Flatten(), linear), (6,))
    dense = graph.layers['layer_1']
    assert (dense.kind, dense.attributes['n_in'], dense.attributes['n_out']) == ('Dense', 6, 4)
    np.testing.assert_array_equal(dense.weights['weight'], linear.weight.detach().numpy().T)
    assert origin['layer_1'] == '1' and dense.source_class == 'Linear'


# ---- moving data -------------------------------------------------------------------------------------
IMAGE = (2, 3, 4)
STRUCTURE = {
    'Flatten': nn.Flatten(),
    'torch.flatten': of(lambda x: torch.flatten(x, 1)),
    'Tensor.flatten_partial': of(lambda x: x.flatten(2)),
    'view_size': of(lambda x: x.view(x.size(0), -1)),
    'view_shape': of(lambda x: x.view(x.shape[0], x.size(1) * x.size(2), -1)),
    'reshape': of(lambda x: x.reshape(-1, 4, 6)),
    'torch.reshape': of(lambda x: torch.reshape(x, (-1, 3, 8))),
    'permute': of(lambda x: x.permute(0, 2, 3, 1)),
    'permute_flatten': of(lambda x: x.permute(0, 3, 1, 2).flatten(1)),
    'transpose_reshape': of(lambda x: torch.transpose(x, 1, 3).reshape(-1, 24)),
    'unsqueeze_squeeze': of(lambda x: x.flatten(2).unsqueeze(1).squeeze(1).unsqueeze(-1)),
    'Unflatten': nn.Sequential(nn.Flatten(), nn.Unflatten(1, (4, 6))),
    'cat_channels': of(lambda x: torch.cat([x, 2 * x], dim=1)),
    'concat_last': of(lambda x: torch.concat((x, x.relu()), -1)),
    'contiguous': of(lambda x: x.transpose(1, 2).contiguous().view(-1, 24)),
    'floating_casts': of(lambda x: (x.float() * 2).to(x.dtype).to(dtype=torch.float64).type_as(x).flatten(1)),
}


def test_a_cast_to_an_integer_dtype_is_refused() -> None:
    message = refusal(of(lambda x: x.to(torch.int32)), IMAGE)
    assert 'torch.int32' in message and 'floating-point' in message


@pytest.mark.parametrize('case', sorted(STRUCTURE))
def test_reshapes_and_concatenations_move_values_like_torch(case: str, tmp_path) -> None:
    assert_like_torch(STRUCTURE[case], IMAGE, tmp_path, atol=1e-5)


def _two_views(self: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    maps = self.conv(x)
    return torch.flatten(maps, 2), maps.permute(0, 3, 2, 1).flatten(1)


def test_two_views_of_one_channels_last_tensor_get_their_own_layouts(tmp_path) -> None:
    """Both views of the (channels-last) convolution output need the framework order of their own axes."""
    model = Net(_two_views, conv=nn.Conv2d(2, 3, 1))
    assert_like_torch(model, IMAGE, tmp_path, atol=1e-5)


@pytest.mark.parametrize('operation', ['add', 'sub', 'mul', 'maximum', 'minimum'])
def test_two_tensor_merges(operation: str, tmp_path) -> None:
    functions = {'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'maximum': torch.maximum}
    function = functions.get(operation, torch.minimum)
    model = Net2(lambda self, x, y: function(self.conv(x), y), conv=nn.Conv2d(2, 2, 1))
    hls_model = assert_like_torch(model, [IMAGE, IMAGE], tmp_path, atol=1e-3)
    assert 'Merge' in kinds(hls_model)


# ---- graphs, names, layouts ----------------------------------------------------------------------------
class LeNet(nn.Module):
    """The functional style of the PyTorch tutorials: F.* calls and x.view(-1, n)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 3, 3), nn.Conv2d(3, 4, 3)
        self.fc1, self.fc2 = nn.Linear(4 * 2 * 2, 8), nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.view(-1, 16))))


class ResidualBlock(nn.Module):
    """A ResNet basic block: an in-place add of the skip connection, then global pooling."""

    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(3, 3, 3, padding=1, bias=False) for _ in range(2))
        self.norms = nn.ModuleList(randomized(nn.BatchNorm2d(3)) for _ in range(2))
        self.pool = nn.AdaptiveAvgPool2d((1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.norms[0](self.convs[0](x)))
        out = self.norms[1](self.convs[1](out))
        out += x
        return torch.flatten(self.pool(F.relu(out)), 1)


@pytest.mark.parametrize('model, shape', [(LeNet, (1, 14, 14)), (ResidualBlock, (3, 5, 5))])
def test_common_model_styles(model: type[nn.Module], shape: tuple[int, ...], tmp_path) -> None:
    torch.manual_seed(7)
    assert_like_torch(model(), shape, tmp_path, atol=1e-3)


class TwoHeads(nn.Module):
    """Two inputs, a custom forward, a Sequential inside, and two outputs."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(4)
        self.features = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.side = nn.Linear(4, 3)
        self.head = nn.Linear(3 * 3 * 2 + 3, 5)

    def forward(self, image: torch.Tensor, vector: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        maps = self.features(image)
        joined = torch.cat([torch.flatten(maps, 1), F.relu(self.side(vector))], dim=1)
        return maps, self.head(joined)


@pytest.mark.parametrize('mode, transpose', [('full', False), ('internal', False), ('full', True), ('internal', True)])
def test_several_inputs_and_outputs_in_each_layout(mode: str, transpose: bool, tmp_path) -> None:
    hls_model = assert_like_torch(TwoHeads(), [(2, 6, 4), (4,)], tmp_path, atol=1e-3, mode=mode, transpose=transpose)
    graph = hls_model.graph
    assert graph.tensors[graph.inputs[0]].shape == ((2, 6, 4) if mode == 'full' else (6, 4, 2))
    assert graph.tensors[graph.outputs[0]].shape == ((3, 3, 2) if transpose else (3, 2, 3))
    assert graph.tensors[graph.outputs[1]].shape == (5,)


def test_off_mode_keeps_every_tensor_in_the_framework_layout(tmp_path) -> None:
    model = nn.Sequential(nn.Flatten(), nn.Linear(24, 5), nn.ReLU(), nn.Linear(5, 3))
    hls_model = assert_like_torch(model, IMAGE, tmp_path, mode='off')
    assert 'Transpose' not in kinds(hls_model)


def test_layer_names_follow_module_paths_and_node_names() -> None:
    graph, origin = parse_pytorch_model(TwoHeads(), [(2, 6, 4), (4,)])
    assert {'features_0', 'features_1', 'features_2', 'side', 'head', 'relu', 'cat'} <= set(graph.layers)
    assert origin['features_0'] == 'features.0' and origin['cat'] == 'cat'
    conv = graph.layers['features_0']
    assert (conv.kind, conv.source_name, conv.source_class) == ('Conv2D', 'features.0', 'Conv2d')
    assert graph.inputs == ['image', 'vector']


def test_internal_mode_needs_no_transpose_before_a_convolution() -> None:
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten())
    full, _ = parse_pytorch_model(model, (2, 5, 5), 'full')
    internal, _ = parse_pytorch_model(model, (2, 5, 5), 'internal')
    assert [layer.kind for layer in full.layers.values()][:3] == ['Input', 'Transpose', 'Conv2D']
    assert [layer.kind for layer in internal.layers.values()][:2] == ['Input', 'Conv2D']


# ---- errors ------------------------------------------------------------------------------------------------
class Unsupported(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.Softshrink()  # (nn.GRUCell converts since docs/recurrent.md's cells)
        self.mish = nn.Mish()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.floor(self.mish(self.cell(x)))


def test_every_unsupported_operation_is_listed_in_one_error() -> None:
    message = refusal(Unsupported(), (4,))
    assert message.startswith('3 unsupported PyTorch operation(s):')
    for part in ("'cell' (Softshrink, module cell)", "'mish' (Mish, module mish)", "'floor' (floor, function)"):
        assert part in message


def test_every_unsupported_setting_is_listed_in_one_error() -> None:
    model = nn.Sequential(nn.Conv2d(2, 2, 3, padding=1, padding_mode='reflect'), nn.Flatten(), nn.Softplus(beta=2))
    message = refusal(model, (2, 4, 4))
    assert message.startswith('2 operation(s) cannot be converted')
    assert "'0' (Conv2d, module 0): padding_mode='reflect'" in message and "'2' (Softplus, module 2)" in message


@pytest.mark.parametrize(
    'model, shape, words',
    [
        (nn.Sequential(nn.Linear(4, 3)), (5,), ["'0' (Linear, module 0)", 'input_shape', '1x5 and 4x3']),
        (nn.Sequential(nn.Conv2d(2, 3, 3)), (2, 5, 5), ["'0' (Conv2d, module 0)", "is 'off'"]),
        (of(lambda x: x.view(1, -1)), (2, 3), ['must be -1 or x.size(0), got 1']),
        (of(lambda x: x.reshape(-1, 3)), (2, 3), ['move values between the samples']),
        (of(lambda x: torch.flatten(x)), (2, 3), ['merge the batch axis']),
        (of(lambda x: F.dropout(x, 0.2)), (3,), ['training=True']),
        (of(lambda x: F.softmax(x, dim=0)), (3,), ['batch axis']),
        (of(lambda x: x[:, None]), (3,), ['indexing with None']),
        (of(lambda x: x[1:]), (3,), ['along the batch axis']),
        (of(lambda x: x.sum()), (3,), ['reduce the batch too']),
        (of(lambda x: torch.cat([x, x], dim=1, out=None)), (3,), ['arguments are not supported']),
        (nn.Sequential(nn.Hardtanh(-1, 2)), (3,), ['power of two']),
        (Net(lambda self, x: self.w, w=nn.Parameter(torch.ones(3))), (3,), ['output 0', 'not a tensor computed']),
        (Net2(lambda self, x, y: x + y), (3,), ['takes 2 input(s) (x, y), but input_shape gives 1']),
        (Net(lambda self, x: x.relu() if x.sum() > 0 else x), (3,), ['torch.fx cannot trace']),
        (nn.Sequential(nn.ReLU()), (0, 3), ['positive ints']),
        (nn.Sequential(nn.ReLU()), 'x', ['must be a tuple or a list of tuples']),
        (lambda x: x, (3,), ['expected a torch.nn.Module']),
    ],
    ids=lambda value: None if not isinstance(value, list) else value[0][:40],
)
def test_errors_name_the_node_and_the_problem(model: Any, shape: Any, words: list[str]) -> None:
    mode = 'off' if 'off' in ''.join(words) else 'full'
    message = refusal(model, shape, mode)
    for word in words:
        assert word in message, message


def test_a_conversion_that_changes_a_shape_is_caught(monkeypatch) -> None:
    monkeypatch.setitem(FUNCTIONS, torch.flatten, lambda step, x, *args: x)
    message = refusal(of(lambda x: torch.flatten(x, 1)), (2, 3))
    assert "'flatten' (flatten, function): converted to a shape of (2, 3) per sample" in message
