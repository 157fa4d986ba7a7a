"""The space: dimensions, grid order, checked values, and a point's hls_config."""

from __future__ import annotations

import pytest

from hls4ml.exploration.space import Space, hls_config_for, point_digest


def test_grid_runs_the_last_dimension_fastest_and_normalises_precisions() -> None:
    space = Space(precision={'fc1': [(8, 3), 'fixed<6,2>']}, reuse_factor=[1, 2], io_type=['IO_PARALLEL'])
    points = list(space.grid())
    assert space.size() == len(points) == 4
    assert list(points[0]) == ['io_type', 'reuse_factor', 'precision:fc1']
    assert [point['precision:fc1'] for point in points] == ['fixed<8,3>', 'fixed<6,2>'] * 2
    assert {point['io_type'] for point in points} == {'io_parallel'}
    assert space.first() == points[0]
    assert space.layers == ['fc1']


@pytest.mark.parametrize(
    ('arguments', 'words'),
    [
        ({}, 'the space is empty'),
        ({'reuse_factor': [0]}, 'reuse_factor'),
        ({'reuse_factor': 4}, 'a list of values'),
        ({'strategy': ['Fast']}, 'Fast'),
        ({'precision': {'fc1': []}}, 'precision:fc1'),
        ({'precision': ['fixed<8']}, 'space precision'),
        ({'io_type': {'fc1': ['io_stream']}}, 'whole model'),
    ],
)
def test_bad_spaces_are_refused_by_name(arguments: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Space(**arguments)


def test_a_point_becomes_a_config_over_the_base_without_changing_it() -> None:
    base = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'fc1': {'Precision': {'accum': 'fixed<24,8>'}}}}
    point = {'strategy': 'Resource', 'reuse_factor:fc1': 4, 'precision:fc1': 'fixed<8,3>', 'precision': 'fixed<10,4>'}
    config = hls_config_for(point, base, {'fc1': ('weight', 'result')})
    assert config['Model'] == {'Precision': 'fixed<10,4>', 'ReuseFactor': 1, 'Strategy': 'Resource'}
    assert config['LayerName']['fc1'] == {
        'Precision': {'accum': 'fixed<24,8>', 'weight': 'fixed<8,3>', 'result': 'fixed<8,3>'},
        'ReuseFactor': 4,
    }
    assert base == {
        'Model': {'Precision': 'fixed<16,6>'},
        'LayerName': {'fc1': {'Precision': {'accum': 'fixed<24,8>'}}},
    }


def test_the_point_digest_ignores_the_order_of_dimensions() -> None:
    assert point_digest({'a': 1, 'b': 'x'}) == point_digest({'b': 'x', 'a': 1})
    assert point_digest({'a': 1}) != point_digest({'a': 2})


def test_a_model_wide_precision_keeps_the_rest_of_a_precision_dict() -> None:
    base = {'Model': {'Precision': {'default': 'fixed<16,6>', 'maximum': 'fixed<32,12>'}}}
    config = hls_config_for({'precision': 'fixed<9,3>'}, base, {})
    assert config['Model']['Precision'] == {'default': 'fixed<9,3>', 'maximum': 'fixed<32,12>'}
