"""A self-organizing map as a PyTorch module that hls4ml's PyTorch frontend converts to the SOM layer.

    from hls4ml.nn.torch_som import SOM
    som = SOM(n_in=64, grid=(5, 6), output='index')
    som.fit_kohonen(x_train, epochs=5, seed=0)           # or SOM.from_minisom(trained_minisom)
    model = torch.nn.Sequential(torch.nn.Flatten(), som)  # any model; the SOM takes vectors
    hls_model = hls4ml.converters.convert_from_pytorch_model(model, (8, 8), ...)

The codebook (N, n_in) and the labels (N,) are buffers, not parameters: a SOM learns by the Kohonen
rule (`fit_kohonen`), not by gradients. The forward pass is `som_forward`, which torch.fx keeps as
one call (`torch.fx.wrap`), so the frontend sees the whole SOM; its semantics are those of the IR SOM
(hls4ml.nn.som_core, docs/som.md). Outputs are float32, indices included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from hls4ml.nn.som_core import (
    SOMSettings,
    check_codebook,
    check_data,
    make_settings,
    minisom_state,
    train_kohonen,
    unit_labels,
)


def som_forward(
    x: torch.Tensor,
    codebook: torch.Tensor,
    labels: torch.Tensor,
    grid: tuple[int, int],
    distance: str,
    output: str,
    topology: str,
    beta: float,
) -> torch.Tensor:
    """The SOM of a batch of vectors (batch, n_in); one traced call for torch.fx."""
    settings = SOMSettings((int(grid[0]), int(grid[1])), distance, output, topology, beta)
    if x.dim() != 2 or x.shape[1] != codebook.shape[1]:
        raise ValueError(f'SOM: expected inputs of shape (batch, {codebook.shape[1]}), got {tuple(x.shape)}')
    x = x.to(codebook.dtype)
    if distance == 'cosine':
        norms = codebook.norm(dim=1, keepdim=True)
        codebook = codebook / torch.where(norms > 0, norms, torch.ones_like(norms))
        scores = x @ codebook.T
    else:
        diff = x[:, None, :] - codebook[None, :, :]
        if distance == 'squared_euclidean':
            scores = (diff * diff).sum(2)
        elif distance == 'manhattan':
            scores = diff.abs().sum(2)
        else:
            scores = diff.abs().amax(2)
    best = _first_best(scores, distance == 'cosine')
    return _output(scores, best, codebook, labels, settings)


def _first_best(scores: torch.Tensor, largest: bool) -> torch.Tensor:
    """The lowest index among the best scores (torch's argmin does not promise it)."""
    extreme = scores.amax(1, keepdim=True) if largest else scores.amin(1, keepdim=True)
    units = torch.arange(scores.shape[1], device=scores.device).expand_as(scores)
    return torch.where(scores == extreme, units, scores.shape[1]).amin(1)


def _output(
    scores: torch.Tensor, best: torch.Tensor, codebook: torch.Tensor, labels: torch.Tensor, settings: SOMSettings
) -> torch.Tensor:
    output = settings.output
    if output == 'distances':
        return scores
    if output == 'activities':
        linear = scores.sqrt() if settings.distance == 'squared_euclidean' else scores
        at_best = linear.gather(1, best[:, None])
        gap = at_best - linear if settings.distance == 'cosine' else linear - at_best
        return torch.exp(-gap / settings.beta)
    if output == 'index':
        return best[:, None].to(scores.dtype)
    if output == 'one_hot':
        return torch.nn.functional.one_hot(best, settings.n_units).to(scores.dtype)
    if output == 'label':
        return labels[best][:, None].to(scores.dtype)
    if output == 'quantized':
        return codebook[best]
    table = torch.as_tensor(settings.coordinates(), dtype=scores.dtype, device=scores.device)
    return table[best]


torch.fx.wrap('som_forward')


class SOM(torch.nn.Module):
    """A self-organizing map over vectors of n_in values, on a rows x cols grid (see the module doc).

    distance: 'squared_euclidean' (or 'euclidean'), 'manhattan', 'chebyshev', 'cosine';
    output: 'index', 'coordinates', 'one_hot', 'distances', 'label', 'activities', 'quantized';
    topology: 'rectangular' or 'hexagonal' (changes 'coordinates' and the training neighbourhood);
    beta: the width of the activities; labels: one class per unit (output 'label')."""

    codebook: torch.Tensor  # buffers
    labels: torch.Tensor

    def __init__(
        self,
        n_in: int,
        grid: tuple[int, int],
        distance: str = 'squared_euclidean',
        output: str = 'index',
        topology: str = 'rectangular',
        beta: float = 1.0,
        labels: Any = None,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.settings = make_settings(grid, distance, output, topology, beta, f'{type(self).__name__}')
        if int(n_in) < 1:
            raise ValueError(f'SOM: n_in must be positive, got {n_in}')
        self.n_in = int(n_in)
        initial = np.random.default_rng(seed).uniform(-1.0, 1.0, (self.settings.n_units, self.n_in))
        self.register_buffer('codebook', torch.tensor(initial, dtype=torch.float32))
        self.register_buffer('labels', torch.zeros(self.settings.n_units))
        if labels is not None:
            self.set_labels(labels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        settings = self.settings
        return som_forward(
            x,
            self.codebook,
            self.labels,
            settings.grid,
            settings.distance,
            settings.output,
            settings.topology,
            settings.beta,
        )

    def extra_repr(self) -> str:
        settings = self.settings
        return f'n_in={self.n_in}, grid={settings.grid}, distance={settings.distance}, output={settings.output}'

    # ---- weights -----------------------------------------------------------------------------------
    def set_codebook(self, codebook: Any) -> SOM:
        """Replace the codebook: (N, n_in) row-major over the grid, or MiniSom's (rows, cols, n_in)."""
        values = check_codebook(codebook, self.settings, self.n_in, 'SOM.set_codebook')
        self.codebook.copy_(torch.as_tensor(values, dtype=self.codebook.dtype))
        return self

    def set_labels(self, labels: Any) -> SOM:
        """One non-negative class per unit (output 'label')."""
        values = np.asarray(labels, dtype=np.float64).reshape(-1)
        if values.shape != (self.settings.n_units,) or not np.all(np.isfinite(values)) or values.min() < 0:
            raise ValueError(f'SOM.set_labels: expected {self.settings.n_units} non-negative labels, got {values}')
        self.labels.copy_(torch.as_tensor(values, dtype=self.labels.dtype))
        return self

    def codebook_array(self) -> np.ndarray:
        return self.codebook.detach().cpu().numpy().astype(np.float64)

    # ---- training ----------------------------------------------------------------------------------
    def fit_kohonen(
        self,
        data: Any,
        epochs: int = 10,
        sigma: float | None = None,
        learning_rate: float = 0.5,
        mode: str = 'online',
        seed: int = 0,
        initialize: bool = True,
        shuffle: bool = True,
    ) -> SOM:
        """Kohonen training (`hls4ml.nn.som_core.train_kohonen`); `initialize`: start from samples drawn
        with `seed`, else from the current codebook. Deterministic for a given seed."""
        samples = data.detach().cpu().numpy() if torch.is_tensor(data) else data
        samples = check_data(samples, self.n_in, 'SOM.fit_kohonen')
        start = None if initialize else self.codebook_array()
        trained = train_kohonen(samples, start, self.settings, epochs, sigma, learning_rate, mode, seed, shuffle)
        return self.set_codebook(trained)

    def label_units(self, data: Any, targets: Any, method: str = 'majority') -> SOM:
        """Label every unit from labelled samples: `method` 'majority' (MiniSom style) or 'activities'
        (Khacef et al., with this module's beta); `som_core.unit_labels`."""
        samples = data.detach().cpu().numpy() if torch.is_tensor(data) else data
        return self.set_labels(unit_labels(self.codebook_array(), self.settings, samples, targets, method))

    @classmethod
    def from_minisom(
        cls, som: Any, output: str = 'index', beta: float = 1.0, labels: Any = None, distance: str | None = None
    ) -> SOM:
        """A module with a trained MiniSom's codebook, grid, distance and topology."""
        state = minisom_state(som, distance)
        module = cls(state['codebook'].shape[1], state['grid'], state['distance'], output, state['topology'], beta)
        module.set_codebook(state['codebook'])
        return module.set_labels(labels) if labels is not None else module
