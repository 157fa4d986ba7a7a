"""`hls4ml.utils.profiling` (1.x: `hls4ml.model.profiling`): weight and layer-output figures against the
types, the firmware vs framework comparison, and the per-layer overflow summary from `trace()`.

The figure tests check pictures (saved PNGs: size, not blank) and the data behind them; the
overflow tests convert one model twice, with a deliberately narrow type and with a wide one.
Tests that call trace() compile the (tiny) C simulation, hence the csim marker on them.
"""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from pictures import assert_picture  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.types import parse_precision  # noqa: E402
from hls4ml.utils import profiling  # noqa: E402

keras = pytest.importorskip('keras')
pytest.importorskip('matplotlib')

NARROW = 'fixed<6,2>'  # at most 1.94: the inputs (sigma 3) and the dense sums overflow; LSB 1/16
WIDE = 'fixed<32,16>'


def _keras_model():
    keras.utils.set_random_seed(4)
    inputs = keras.Input((8,), name='x')
    left = keras.layers.Dense(6, activation='relu', name='fc1')(inputs)
    right = keras.layers.Dense(6, name='fc2')(inputs)
    added = keras.layers.Add(name='add')([left, right])
    return keras.Model(inputs, keras.layers.Dense(3, activation='softmax', name='out')(added))


@pytest.fixture(scope='module')
def model():
    return _keras_model()


@pytest.fixture(scope='module')
def inputs() -> np.ndarray:
    return np.random.default_rng(0).normal(0, 3, (150, 8)).astype(np.float32)


def _convert(model, precision: str, directory) -> object:
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision=precision)
    return hls4ml.converters.convert_from_keras_model(model, hls_config=config, output_dir=str(directory))


@pytest.fixture(scope='module')
def narrow(model, tmp_path_factory):
    return _convert(model, NARROW, tmp_path_factory.mktemp('narrow'))


@pytest.fixture(scope='module')
def wide(model, tmp_path_factory):
    return _convert(model, WIDE, tmp_path_factory.mktemp('wide'))


# ---- types and data, no compiler ----------------------------------------------------------------
def test_type_band_spans_the_resolution_to_the_largest_magnitude() -> None:
    assert profiling.type_band(parse_precision('fixed<16,6>')) == (-10.0, 5.0)  # 2^-10 .. 32
    low, high = profiling.type_band(parse_precision('ufixed<8,0>'))
    assert low == -8 and high == pytest.approx(np.log2(255 / 256))
    assert profiling.type_band(None) is None
    assert profiling.ap_fixed_WIFS(parse_precision('ufixed<10,3>')) == (10, 3, 7, False)


def test_weights_come_with_the_types_they_are_written_in(model, wide) -> None:
    hls_weights = profiling.weights_hlsmodel(wide)
    assert set(hls_weights) == {'fc1/weight', 'fc1/bias', 'fc2/weight', 'fc2/bias', 'out/weight', 'out/bias'}
    assert hls_weights['fc1/weight'].shape == (48,)
    assert str(profiling.types_hlsmodel(wide)['out/weight']) == WIDE
    keras_weights = profiling.weights_keras(model)
    np.testing.assert_array_equal(np.sort(keras_weights['fc1/kernel']), np.sort(hls_weights['fc1/weight']))
    types = profiling._framework_weight_types(list(keras_weights), wide)
    assert str(types['fc2/kernel']) == WIDE and str(types['out/bias']) == WIDE


def test_keras_outputs_are_named_like_the_converted_layers(model, inputs, wide) -> None:
    outputs = profiling.get_ymodel_keras(model, inputs)
    assert {'fc1', 'fc1_relu', 'fc2', 'add', 'out', 'out_softmax'} <= set(outputs)
    assert outputs['fc1'].min() < 0 <= outputs['fc1_relu'].min()  # before and after the activation
    np.testing.assert_allclose(outputs['fc1_relu'], np.maximum(outputs['fc1'], 0), atol=1e-6)
    np.testing.assert_allclose(outputs['out_softmax'], model.predict(inputs, verbose=0), atol=1e-6)
    np.testing.assert_allclose(outputs['out_softmax'].sum(axis=1), 1, atol=1e-5)


def test_a_standalone_activation_layer_keeps_its_name(tmp_path) -> None:
    keras.utils.set_random_seed(1)
    layers = [keras.Input((4,)), keras.layers.Dense(3, name='d'), keras.layers.Activation('tanh', name='act')]
    model = keras.Sequential(layers)
    x = np.random.default_rng(3).normal(0, 1, (10, 4)).astype(np.float32)
    outputs = profiling.get_ymodel_keras(model, x)
    assert set(outputs) == {'d', 'act'}
    np.testing.assert_allclose(outputs['act'], np.tanh(outputs['d']), atol=1e-6)
    hls_model = hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path))
    assert set(profiling._framework_values(model, hls_model, x)) == {'d', 'act'}


def test_distribution_figure_draws_every_kind_of_plot(tmp_path) -> None:
    rng = np.random.default_rng(1)
    data = {'small': rng.normal(0, 0.01, 500), 'large': rng.normal(0, 40, 500), 'zeros': np.zeros(10)}
    types = {'small': parse_precision('fixed<8,1>'), 'large': parse_precision('fixed<16,6>')}
    for plot in profiling.PLOTS:
        figure = profiling.distribution_figure(data, types, plot, plot=plot)
        figure.savefig(tmp_path / f'{plot}.png')
        assert_picture(tmp_path / f'{plot}.png')
        ticks = figure.axes[0].get_yticklabels()
        assert [tick.get_text() for tick in ticks] == ['small  fixed<8,1>', 'large  fixed<16,6>', 'zeros']
        assert ticks[0].get_position()[1] > ticks[2].get_position()[1]  # the first entry on top
    with pytest.raises(ValueError, match='plot must be one of'):
        profiling.distribution_figure(data, types, 'x', plot='pie')


def test_numerical_needs_a_model() -> None:
    with pytest.raises(ValueError, match='framework model, an hls_model or both'):
        profiling.numerical()


def test_numerical_with_the_framework_model_alone_draws_its_weights(model, tmp_path) -> None:
    figures = profiling.numerical(model=model)
    assert figures[1:] == (None, None, None)
    figures[0].savefig(tmp_path / 'weights.png')
    assert_picture(tmp_path / 'weights.png')


# ---- with the C simulation ----------------------------------------------------------------------
@pytest.mark.csim
def test_numerical_gives_four_figures_of_weights_and_outputs(model, wide, inputs, tmp_path) -> None:
    figures = profiling.numerical(model=model, hls_model=wide, X=inputs)
    assert len(figures) == 4 and all(figure is not None for figure in figures)
    for index, figure in enumerate(figures):
        figure.savefig(tmp_path / f'numerical{index}.png')
        assert_picture(tmp_path / f'numerical{index}.png')
    traced_rows = [label.get_text().split()[0] for label in figures[3].axes[0].get_yticklabels()]
    assert traced_rows == ['fc1', 'fc1_relu', 'fc2', 'add', 'out', 'out_softmax']
    alone = profiling.numerical(hls_model=wide, X=inputs, plot='violinplot')
    assert alone[0] is None and alone[2] is None and alone[1] is not None and alone[3] is not None


@pytest.mark.csim
def test_overflow_summary_reports_a_too_narrow_type(narrow, inputs) -> None:
    summary = profiling.overflow_summary(narrow, inputs)
    assert summary.samples == len(inputs)
    assert {'x', 'fc1', 'fc2'} <= set(summary.overflowing)
    row = summary['fc2']
    assert row.precision == NARROW and row.values == len(inputs) * 6
    assert 0 < row.overflow < row.values
    assert row.largest > 2 and row.integer_bits_needed > 2
    assert row.max_error > 1  # the wrapped values are far off
    narrow_type = parse_precision(NARROW)
    assert summary['x'].overflow == int(np.count_nonzero((inputs > narrow_type.max) | (inputs < narrow_type.min)))
    text = str(summary)
    assert 'fc2' in text and 'layers with overflow: x, fc1, fc2' in text
    assert summary.to_dict()['fc2']['overflow'] == row.overflow


@pytest.mark.csim
def test_overflow_summary_of_a_wide_type_reports_none(wide, inputs) -> None:
    summary = profiling.overflow_summary(wide, inputs)
    assert summary.overflowing == [] and summary.underflowing == []
    assert all(row.overflow == 0 for row in summary.layers)
    # the firmware differs from the wide recomputation only by truncations in the 16 fraction bits
    assert all(row.max_error < 8 * 2**-16 for row in summary.layers)
    assert [row.layer for row in summary.layers] == ['x', 'fc1', 'fc1_relu', 'fc2', 'add', 'out', 'out_softmax']
    assert 'layers with overflow: none' in str(summary)


@pytest.mark.csim
def test_overflow_summary_counts_values_below_the_resolution(model, tmp_path) -> None:
    coarse = _convert(model, 'fixed<10,8>', tmp_path)  # LSB 1/4
    small = np.random.default_rng(5).normal(0, 0.05, (40, 8))
    summary = profiling.overflow_summary(coarse, small)
    assert summary['x'].underflow == int(np.count_nonzero(np.abs(small) < 0.25))
    assert summary.overflowing == []


@pytest.mark.csim
@pytest.mark.parametrize('plot_type', ['dist_diff', 'norm_diff'])
def test_compare_draws_the_differences_per_layer(model, wide, inputs, tmp_path, plot_type) -> None:
    figure = profiling.compare(model, wide, inputs, plot_type=plot_type)
    figure.savefig(tmp_path / 'compare.png')
    assert_picture(tmp_path / 'compare.png')
    differences = profiling.layer_differences(model, wide, inputs)
    assert set(differences) == {'fc1', 'fc1_relu', 'fc2', 'add', 'out', 'out_softmax'}
    assert max(float(np.abs(values).max()) for values in differences.values()) < 0.01
    with pytest.raises(ValueError, match='plot_type'):
        profiling.compare(model, wide, inputs, plot_type='scatter')


@pytest.mark.csim
def test_pytorch_models_are_profiled_too(tmp_path) -> None:
    """Channels-first outputs are lined up with the firmware's channels-last ones, even when the
    pooled output has as many channels as rows and columns (3x3x3), so the shapes cannot tell."""
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    layers = (
        torch.nn.Conv2d(2, 3, 3),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(27, 4),
    )
    module = torch.nn.Sequential(*layers)
    config = hls4ml.utils.config_from_pytorch_model(module, (2, 8, 8), default_precision=WIDE)
    hls_model = hls4ml.converters.convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
    x = np.random.default_rng(2).normal(0, 1, (30, 2, 8, 8)).astype(np.float32)
    assert set(profiling.weights_torch(module)) == {'0/weight', '0/bias', '4/weight', '4/bias'}
    outputs = profiling.get_ymodel_torch(module, x)
    np.testing.assert_allclose(outputs['4'], module(torch.as_tensor(x)).detach().numpy(), atol=1e-6)
    assert outputs['2'].shape == (30, 3, 3, 3)
    figures = profiling.numerical(model=module, hls_model=hls_model, X=x)
    assert all(figure is not None for figure in figures)
    types = profiling._framework_weight_types(list(profiling.weights_torch(module)), hls_model)
    assert str(types['0/weight']) == WIDE
    differences = profiling.layer_differences(module, hls_model, x)
    assert {'0', '1', '2', '4'} <= {hls_model.graph.layers[name].source_name for name in differences}
    assert max(float(np.abs(values).max()) for values in differences.values()) < 1e-3
    assert profiling.overflow_summary(hls_model, x).overflowing == []
