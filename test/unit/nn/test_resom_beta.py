"""beta 'auto' of the ReSOM layers (hls4ml.nn.resom_core.auto_beta): the default, chosen by fit_lateral from
the paired samples as the median gap between each sample's second-nearest and nearest unit (checked against
a loop written from that definition), equivariant to the data's scale, refused while unchosen, and on the
digits far better than the old default of 1."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')

from hls4ml.nn.torch_resom import ReSOM  # noqa: E402


def _second_gap_median(codebook: np.ndarray, data: np.ndarray, distance: str) -> float:
    """The definition, one sample at a time: sorted distances (Euclidean, not squared), second minus first."""
    gaps = []
    for sample in data:
        difference = codebook - sample
        if distance == 'squared_euclidean':
            distances = [float(np.sqrt(np.dot(row, row))) for row in difference]
        else:
            distances = [float(np.abs(row).sum()) for row in difference]
        ordered = sorted(distances)
        gaps.append(ordered[1] - ordered[0])
    return float(np.median(gaps))


def _resom(distance: str = 'squared_euclidean', **betas) -> tuple[ReSOM, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    x, y = rng.random((120, 5)), rng.random((120, 3))
    resom = ReSOM(5, 3, (3, 3), (2, 2), distance=distance, **betas)
    resom.som_x.set_codebook(rng.random((9, 5)))
    resom.som_y.set_codebook(rng.random((4, 3)))
    return resom, x, y


@pytest.mark.parametrize('distance', ['squared_euclidean', 'manhattan'])
def test_fit_lateral_chooses_the_median_second_gap(distance: str) -> None:
    resom, x, y = _resom(distance)
    assert resom.settings.auto == ('x', 'y')
    resom.fit_lateral(x, y)
    codebook_x, codebook_y = resom.codebook_arrays()
    assert resom.settings.map_x.beta == pytest.approx(_second_gap_median(codebook_x, x, distance), rel=1e-12)
    assert resom.settings.map_y.beta == pytest.approx(_second_gap_median(codebook_y, y, distance), rel=1e-12)
    assert resom.som_x.settings.beta == resom.settings.map_x.beta and not resom.settings.auto


def test_auto_beta_scales_with_the_data_and_explicit_betas_stay() -> None:
    resom, x, y = _resom(beta_y=0.3)
    scaled, _, _ = _resom(beta_y=0.3)
    scaled.som_x.set_codebook(10 * resom.som_x.codebook_array())
    resom.fit_lateral(x, y)
    scaled.fit_lateral(10 * x, y)
    assert scaled.settings.map_x.beta == pytest.approx(10 * resom.settings.map_x.beta, rel=1e-6)  # float32 codebooks
    assert resom.settings.map_y.beta == 0.3 and resom.settings.auto == ()


def test_an_unchosen_auto_beta_is_refused_by_name() -> None:
    resom, x, y = _resom(beta_x=0.5)
    with pytest.raises(ValueError, match="beta_y = 'auto' is not chosen yet: fit_lateral"):
        resom(torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32))
    with pytest.raises(ValueError, match="beta_y = 'auto'"):
        resom.label_units(labelled_y=(y[:20], np.arange(20) % 3), method='activities')
    assert ReSOM.from_settings(resom.settings, resom.codebook_arrays()).settings.auto == ('y',)


def test_auto_beta_labels_the_digits_far_better_than_beta_one() -> None:
    """One seed, 6 x 6 maps, 1000 training pairs, 300 labels of the left half, 797 test pairs: docs/resom.md
    gives the figures over five seeds (auto 0.718 +- 0.040, beta = 1: 0.384 +- 0.060)."""
    sklearn = pytest.importorskip('sklearn.datasets')
    digits = sklearn.load_digits()
    order = np.random.default_rng(0).permutation(len(digits.target))
    images, targets = (digits.data.reshape(-1, 8, 8) / 16.0)[order], digits.target[order]
    left, right = images[:, :, :4].reshape(-1, 32), images[:, :, 4:].reshape(-1, 32)
    train, test = slice(0, 1000), slice(1000, None)
    accuracies = {}
    for beta in ('auto', 1.0):
        resom = ReSOM(32, 32, (6, 6), (6, 6), beta_x=beta, beta_y=beta)
        resom.fit_maps(left[train], right[train], epochs=2, seed=0).fit_lateral(left[train], right[train])
        resom.label_units(labelled_x=(left[:300], targets[:300]))
        with torch.no_grad():
            found = resom(torch.tensor(left[test]), torch.tensor(right[test])).numpy().reshape(-1)
        accuracies[beta] = float((found == targets[test]).mean())
    assert accuracies['auto'] > accuracies[1.0] + 0.15 and accuracies['auto'] > 0.6


def test_keras_resom_chooses_auto_betas_and_saves_them() -> None:
    """The Keras layer: a model is built with beta 'auto' (the symbolic call does not compute), predicting
    before fit_lateral is refused, and get_config carries the chosen numbers."""
    keras = pytest.importorskip('keras')
    from hls4ml.nn.keras_resom import ReSOM as KerasReSOM

    rng = np.random.default_rng(0)
    x, y = rng.random((100, 6)), rng.random((100, 4))
    resom = KerasReSOM((3, 3), (2, 2), name='resom')
    inputs = [keras.Input((6,)), keras.Input((4,))]
    model = keras.Model(inputs, resom(inputs))
    assert resom.get_config()['beta_x'] == 'auto'
    with pytest.raises(ValueError, match="beta_x and beta_y = 'auto' is not chosen yet"):
        model.predict([x, y], verbose=0)
    resom.fit_maps(x, y, epochs=1, seed=0).fit_lateral(x, y)
    codebook_x, _ = resom.codebook_arrays()
    assert resom.get_config()['beta_x'] == pytest.approx(_second_gap_median(codebook_x, x, 'squared_euclidean'))
    assert KerasReSOM.from_config(resom.get_config()).settings.auto == ()
