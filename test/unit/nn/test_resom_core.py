"""The float ReSOM of hls4ml.nn.resom_core on the worked example of the seed-layers spec (C.2), and its
settings checks."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.nn.resom_core import associate, make_settings, map_labels, select_output

LATERAL = np.array([[0.9, 0.1], [0.2, 0.7], [0.1, 0.9]])
ACTIVITY_X, ACTIVITY_Y = np.array([[1.0, 0.8, 0.3]]), np.array([[0.5, 1.0]])


@pytest.mark.parametrize(
    ('source', 'combine', 'expected_x', 'expected_y'),
    [
        ('all', 'product', (0.5789, 0.6737, 0.3000), (0.5000, 0.8532)),
        ('all', 'sum', (0.7895, 0.8211, 0.6500), (0.7500, 0.9266)),
        ('bmu', 'product', (0.1111, 0.6222, 0.3000), (0.5000, 0.1111)),
    ],
)
def test_convergence_matches_the_spec_example(source, combine, expected_x, expected_y) -> None:
    settings = make_settings((1, 3), (1, 2), source=source, combine=combine, output='activities')
    activity_x, activity_y = associate(ACTIVITY_X, ACTIVITY_Y, LATERAL, settings)
    np.testing.assert_allclose(activity_x[0], expected_x, atol=1e-4)
    np.testing.assert_allclose(activity_y[0], expected_y, atol=1e-4)


def test_the_y_neuron_overrules_the_x_bmu() -> None:
    """Divergence gives label^y = (0, 1); the global winner is index 4 (y neuron 1), class 1."""
    settings = make_settings((1, 3), (1, 2), output='index')
    activity_x, activity_y = associate(ACTIVITY_X, ACTIVITY_Y, LATERAL, settings)
    assert select_output(activity_x, activity_y, None, settings)[0, 0] == 4
    codebooks = (np.eye(3), np.eye(2))
    labels = map_labels(codebooks, LATERAL, settings, labelled_x=(np.eye(3), [0, 1, 1]))
    np.testing.assert_array_equal(labels, [0, 1, 1, 0, 1])
    labelled = make_settings((1, 3), (1, 2), output='label')
    assert select_output(activity_x, activity_y, labels, labelled)[0, 0] == 1


def test_no_lateral_input_leaves_zero_or_half() -> None:
    silent = np.zeros((3, 2))
    for combine, expected in (('product', 0.0), ('sum', 0.5)):
        settings = make_settings((1, 3), (1, 2), combine=combine, output='activities')
        activity_x, _ = associate(ACTIVITY_X, ACTIVITY_Y, silent, settings)
        np.testing.assert_allclose(activity_x, ACTIVITY_X * expected)


@pytest.mark.parametrize(
    ('options', 'message'),
    [
        ({'distance': 'cosine'}, "unsupported distance 'cosine'"),
        ({'source': 'winner'}, "unsupported source 'winner'"),
        ({'output': 'coordinates'}, "unsupported output 'coordinates'"),
        ({'iterations': 0}, 'iterations must be an integer of at least 1'),
        ({'beta_y': -1.0}, r'ReSOM \(map y\): beta must be a finite positive number'),
        ({'grid_x': (0, 3)}, r'ReSOM \(map x\): grid 0x3'),
    ],
)
def test_bad_settings_are_named(options, message) -> None:
    arguments = {'grid_x': (1, 3), 'grid_y': (1, 2), **options}
    with pytest.raises(ValueError, match=message):
        make_settings(**arguments)
