"""`hls4ml.utils.plot_model`: the graph drawn with matplotlib, saved as PNG, SVG or PDF."""

from __future__ import annotations

import sys

import pytest
from pictures import assert_picture

from hls4ml.model.ir import Graph
from hls4ml.utils import plot_model
from hls4ml.utils.plotting import KIND_COLOURS, require_matplotlib

pytest.importorskip('matplotlib')

FIXED = 'fixed<16,6>'


@pytest.fixture
def branchy_graph(build_layer) -> Graph:
    """x -> fc1 -> {relu, fc2} -> add -> softmax, plus a skip edge from fc1 straight into add."""
    graph = Graph()
    build_layer(graph, 'x', 'Input', output_shape=(8,), types={'result': FIXED})
    graph.inputs = ['x']
    build_layer(graph, 'fc1', 'Dense', ['x'], (6,), types={'result': FIXED, 'weight': 'fixed<8,2>', 'bias': FIXED})
    build_layer(graph, 'relu', 'Activation', ['fc1'], (6,), types={'result': 'ufixed<8,4>'}, activation='relu')
    build_layer(graph, 'fc2', 'Dense', ['relu'], (6,), types={'result': FIXED})
    build_layer(graph, 'add', 'Merge', ['fc1', 'fc2'], (6,), types={'result': FIXED}, op='add')
    build_layer(graph, 'softmax', 'Softmax', ['add'], (6,), types={'result': 'ufixed<16,0>'})
    graph.outputs = ['softmax']
    return graph


def _arrows(figure) -> list:
    axes = figure.axes[0]
    return [text for text in axes.texts if getattr(text, 'arrow_patch', None) is not None]


def test_png_is_a_real_picture_with_one_box_per_layer_and_one_arrow_per_edge(branchy_graph, tmp_path) -> None:
    figure = plot_model(branchy_graph, to_file=tmp_path / 'model.png')
    pixels = assert_picture(tmp_path / 'model.png', min_colours=6)
    assert pixels.shape[0] > pixels.shape[1]  # rows by depth: taller than wide for this chain
    edges = sum(len(layer.inputs) for layer in branchy_graph.layers.values())
    assert len(_arrows(figure)) == edges == 6  # the merge has two incoming arrows
    boxes = figure.axes[0].patches
    assert len(boxes) == len(branchy_graph.layers)
    colours = {tuple(box.get_facecolor()) for box in boxes}
    assert len(colours) >= 4  # input, dense, activation, merge, softmax differ


def test_boxes_name_the_layer_kind_shapes_and_precisions(branchy_graph) -> None:
    figure = plot_model(branchy_graph)
    texts = [text.get_text() for text in figure.axes[0].texts]
    assert {'fc1', 'Dense', '8 -> 6', 'result: fixed<16,6>', 'weight: fixed<8,2>'} <= set(texts)
    assert '6, 6 -> 6' in texts  # the merge's two inputs
    assert 'result: ufixed<16,0>' in texts


def test_shapes_and_precisions_can_be_left_out(branchy_graph) -> None:
    full = plot_model(branchy_graph)
    bare = plot_model(branchy_graph, show_shapes=False, show_precision=False)
    texts = [text.get_text() for text in bare.axes[0].texts if text.get_text()]
    assert not any('->' in text or ':' in text for text in texts)
    assert bare.get_size_inches()[1] < full.get_size_inches()[1]


def test_branches_sit_side_by_side(build_layer, tmp_path) -> None:
    graph = Graph()
    build_layer(graph, 'x', 'Input', output_shape=(4,), types={'result': FIXED})
    for name in ('a', 'b', 'c'):
        build_layer(graph, name, 'Dense', ['x'], (4,), types={'result': FIXED})
    build_layer(graph, 'cat', 'Concatenate', ['a', 'b', 'c'], (12,), types={'result': FIXED}, axis=-1)
    graph.inputs, graph.outputs = ['x'], ['cat']
    figure = plot_model(graph, to_file=tmp_path / 'wide.png')
    pixels = assert_picture(tmp_path / 'wide.png')
    assert pixels.shape[1] > pixels.shape[0]  # three columns in the middle row
    assert len(_arrows(figure)) == 6


@pytest.mark.parametrize(('suffix', 'magic'), [('svg', b'<svg'), ('pdf', b'%PDF')])
def test_other_formats_follow_the_extension(branchy_graph, tmp_path, suffix, magic) -> None:
    path = tmp_path / f'model.{suffix}'
    plot_model(branchy_graph, to_file=path)
    assert magic in path.read_bytes()[:400]


def test_an_unknown_extension_is_refused_by_name(branchy_graph, tmp_path) -> None:
    with pytest.raises(ValueError, match=r"'docx'.*png"):
        plot_model(branchy_graph, to_file=tmp_path / 'model.docx')
    assert not (tmp_path / 'model.docx').exists()


def test_a_converted_keras_model_is_drawn(tmp_path) -> None:
    keras = pytest.importorskip('keras')
    import hls4ml

    inputs = keras.Input((8,), name='features')
    left = keras.layers.Dense(4, activation='relu', name='left')(inputs)
    right = keras.layers.Dense(4, name='right')(inputs)
    merged = keras.layers.Concatenate(name='joined')([left, right])
    model = keras.Model(inputs, keras.layers.Dense(3, activation='softmax', name='out')(merged))
    hls_model = hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    figure = hls4ml.utils.plot_model(hls_model, to_file=str(tmp_path / 'keras.png'))
    assert_picture(tmp_path / 'keras.png', min_colours=6)
    texts = {text.get_text() for text in figure.axes[0].texts}
    assert {'left', 'left_relu', 'right', 'joined', 'out', 'out_softmax'} <= texts
    assert len(_arrows(figure)) == sum(len(layer.inputs) for layer in hls_model.get_layers())
    assert set(KIND_COLOURS) >= {'Dense', 'Concatenate', 'Softmax'}


def test_missing_matplotlib_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, 'matplotlib', None)
    with pytest.raises(ImportError, match=r"pip install 'hls4ml\[plot\]'"):
        require_matplotlib()
