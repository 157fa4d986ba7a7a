"""ReSOM as a PyTorch module that hls4ml's PyTorch frontend converts to the ReSOM layer (docs/resom.md).

    from hls4ml.nn.torch_resom import ReSOM
    resom = ReSOM(32, 32, grid_x=(6, 6), grid_y=(6, 6), beta_x=0.25, beta_y=0.25, output='label')
    resom.fit_maps(x, y, epochs=5, seed=0).fit_lateral(x, y)      # unlabelled paired samples
    resom.label_units(labelled_x=(x_few, targets_few))            # y by divergence
    classes = resom(x_batch, y_batch)                             # two vectors per sample: x, then y
    # or: ReSOM.from_soms(som_x, som_y, pairs=(x, y), labelled_x=...), ReSOM.from_minisoms(...)

The two maps are `hls4ml.nn.torch_som.SOM` modules (`resom.som_x`, `resom.som_y`, output 'activities',
their labels are the ReSOM's); the lateral matrix is a buffer. The forward pass is `resom_forward`, which
torch.fx keeps as one call (`torch.fx.wrap`), so the frontend sees the whole ReSOM; its semantics are
those of the IR ReSOM (`hls4ml.nn.resom_core`). Outputs are float32, indices included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from hls4ml.nn import resom_core
from hls4ml.nn.resom_core import ReSOMLearning, ReSOMSettings
from hls4ml.nn.torch_som import SOM, som_forward


def first_largest(values: torch.Tensor) -> torch.Tensor:
    """Per row, the lowest index of the largest value (torch's argmax does not promise the tie rule)."""
    top = values.amax(1, keepdim=True)
    units = torch.arange(values.shape[1], device=values.device).expand_as(values)
    return torch.where(values == top, units, values.shape[1]).amin(1)


def combined(activity: torch.Tensor, lateral: torch.Tensor, combine: str) -> torch.Tensor:
    """ã ⊙ ℓ/max ℓ or (ã + ℓ/max ℓ) / 2; ℓ/max ℓ = 0 where max ℓ = 0."""
    top = lateral.amax(1, keepdim=True)
    scaled = torch.where(top > 0, lateral / torch.where(top > 0, top, torch.ones_like(top)), torch.zeros_like(lateral))
    return activity * scaled if combine == 'product' else (activity + scaled) / 2.0


def resom_forward(
    x: torch.Tensor,
    y: torch.Tensor,
    codebook_x: torch.Tensor,
    codebook_y: torch.Tensor,
    lateral: torch.Tensor,
    labels_x: torch.Tensor,
    labels_y: torch.Tensor,
    grid_x: tuple[int, int],
    grid_y: tuple[int, int],
    distance: str,
    source: str,
    combine: str,
    iterations: int,
    output: str,
    beta_x: float,
    beta_y: float,
) -> torch.Tensor:
    """The ReSOM of a batch of paired vectors x (batch, n_in_x), y (batch, n_in_y); one traced call for torch.fx."""
    if x.shape[0] != y.shape[0]:
        raise ValueError(f'ReSOM: {x.shape[0]} samples of x and {y.shape[0]} of y do not pair up')
    activity_x = som_forward(x, codebook_x, labels_x, grid_x, distance, 'activities', 'rectangular', beta_x)
    activity_y = som_forward(y, codebook_y, labels_y, grid_y, distance, 'activities', 'rectangular', beta_y)
    for _ in range(iterations):
        if source == 'all':
            lateral_x, lateral_y = activity_y @ lateral.T, activity_x @ lateral
        else:
            lateral_x, lateral_y = lateral[:, first_largest(activity_y)].T, lateral[first_largest(activity_x)]
        activity_x, activity_y = combined(activity_x, lateral_x, combine), combined(activity_y, lateral_y, combine)
    if output == 'activities':
        return torch.cat([activity_x, activity_y], 1)
    winner_x, winner_y = first_largest(activity_x), first_largest(activity_y)
    if output == 'winners':
        return torch.stack([winner_x, winner_y], 1).to(activity_x.dtype)
    best_x, best_y = activity_x.gather(1, winner_x[:, None]), activity_y.gather(1, winner_y[:, None])
    winner = torch.where(best_y > best_x, winner_y[:, None] + activity_x.shape[1], winner_x[:, None])
    if output == 'index':
        return winner.to(activity_x.dtype)
    return torch.cat([labels_x, labels_y])[winner].to(activity_x.dtype)


torch.fx.wrap('resom_forward')


class ReSOM(ReSOMLearning, torch.nn.Module):
    """Two SOMs (inputs x of n_in_x values, y of n_in_y) associated by a Hebbian lateral matrix (see the
    module doc).

    distance: 'squared_euclidean' (or 'euclidean'), 'manhattan', 'chebyshev'; source: 'all' or 'bmu';
    combine: 'product' or 'sum'; iterations >= 1; output: 'label', 'index', 'winners', 'activities';
    beta_x, beta_y: the widths of the maps' activities ('auto': chosen from the data by fit_lateral);
    topology (one or a pair): for training the maps.
    Learning and constructors (fit_maps, fit_lateral, label_units, from_soms, from_minisoms): ReSOMLearning."""

    lateral: torch.Tensor  # a buffer

    def __init__(
        self,
        n_in_x: int,
        n_in_y: int,
        grid_x: tuple[int, int],
        grid_y: tuple[int, int],
        distance: str = 'squared_euclidean',
        source: str = 'all',
        combine: str = 'product',
        iterations: int = 1,
        output: str = 'label',
        beta_x: float | str = 'auto',
        beta_y: float | str = 'auto',
        topology: str | tuple[str, str] = 'rectangular',
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.settings = resom_core.make_settings(
            grid_x, grid_y, distance, source, combine, iterations, output, beta_x, beta_y, topology
        )
        maps = (self.settings.map_x, self.settings.map_y)
        self.som_x, self.som_y = (
            SOM(n_in, mapping.grid, mapping.distance, 'activities', mapping.topology, mapping.beta, seed=seed + index)
            for index, (n_in, mapping) in enumerate(zip((n_in_x, n_in_y), maps, strict=True))
        )
        self.register_buffer('lateral', torch.zeros(self.settings.n_units))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        settings, som_x, som_y = self.settings, self.som_x, self.som_y
        resom_core.check_chosen(settings, 'ReSOM')
        return resom_forward(
            x,
            y,
            som_x.codebook,
            som_y.codebook,
            self.lateral,
            som_x.labels,
            som_y.labels,
            settings.map_x.grid,
            settings.map_y.grid,
            settings.distance,
            settings.source,
            settings.combine,
            settings.iterations,
            settings.output,
            settings.map_x.beta,
            settings.map_y.beta,
        )

    def extra_repr(self) -> str:
        settings = self.settings
        options = ('source', 'combine', 'iterations', 'output')
        return ', '.join(f'{name}={getattr(settings, name)}' for name in options)

    # ---- weights -----------------------------------------------------------------------------------
    def codebook_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.som_x.codebook_array(), self.som_y.codebook_array()

    def lateral_array(self) -> np.ndarray:
        return self.lateral.detach().cpu().numpy().astype(np.float64)

    def labels_array(self) -> np.ndarray:
        """The n_units_x + n_units_y labels, x units first."""
        return torch.cat([self.som_x.labels, self.som_y.labels]).detach().cpu().numpy().astype(np.float64)

    def set_lateral(self, lateral: Any) -> ReSOM:
        """Replace H: (n_units_x, n_units_y), finite and non-negative."""
        values = resom_core.check_lateral(lateral, self.settings, 'ReSOM.set_lateral')
        self.lateral.copy_(torch.as_tensor(values, dtype=self.lateral.dtype))
        return self

    def set_labels(self, labels: Any) -> ReSOM:
        """One non-negative class per unit, the x units first (output 'label')."""
        values = resom_core.check_labels(labels, self.settings, 'ReSOM.set_labels')
        self.som_x.set_labels(values[: self.settings.n_units[0]])
        self.som_y.set_labels(values[self.settings.n_units[0] :])
        return self

    @classmethod
    def from_settings(cls, settings: ReSOMSettings, codebooks: Any, labels: Any = None, **kwargs: Any) -> ReSOM:
        """A module with these settings and codebooks ((n_units, n_in) each); kwargs: seed."""
        widths = [np.shape(codebook)[-1] for codebook in codebooks]
        module = cls(*widths, **{**resom_core.arguments(settings), **kwargs})
        module.som_x.set_codebook(codebooks[0])
        module.som_y.set_codebook(codebooks[1])
        return module.set_labels(labels) if labels is not None else module
