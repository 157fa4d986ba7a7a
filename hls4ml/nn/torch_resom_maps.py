"""ReSOM of M >= 2 maps as a PyTorch module that hls4ml's PyTorch frontend converts to the ReSOMMaps layer
(docs/resom.md, "More than two maps").

    from hls4ml.nn.torch_resom_maps import ReSOMMaps
    resom = ReSOMMaps([24, 16, 24], grids=[(6, 6)] * 3, betas=0.25, output='label')
    resom.fit_maps([x0, x1, x2], epochs=2, seed=3).fit_laterals([x0, x1, x2])   # unlabelled, paired
    resom.label_units([(x0[:300], targets[:300]), None, None])   # maps 1 and 2 by divergence
    classes = resom(b0, b1, b2)                                  # one vector per map and sample
    # or: ReSOMMaps.from_minisoms([som_0, som_1, som_2], data=[x0, x1, x2], labelled=[...], betas=0.25)

The maps are `hls4ml.nn.torch_som.SOM` modules (`resom.soms`, output 'activities'); the pair matrices are
one symmetric block-matrix buffer (`set_laterals` writes it, `lateral_arrays` reads the pairs back). The
forward pass is `resom_maps_forward`, one call for torch.fx (`torch.fx.wrap`), with the semantics of
`resom_maps_core`. Outputs are float32, indices included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from hls4ml.model.reference.resom_maps import offsets
from hls4ml.nn import resom_maps_core
from hls4ml.nn.resom_maps_core import ReSOMMapsLearning, ReSOMMapsSettings
from hls4ml.nn.torch_resom import combined, first_largest
from hls4ml.nn.torch_som import SOM, som_forward


def resom_maps_forward(
    inputs: list[torch.Tensor],
    codebooks: list[torch.Tensor],
    matrix: torch.Tensor,
    labels: list[torch.Tensor],
    grids: list[tuple[int, int]],
    distance: str,
    source: str,
    combine: str,
    iterations: int,
    output: str,
    betas: list[float],
) -> torch.Tensor:
    """The M-map ReSOM of a batch of vectors, one (batch, n_in_m) tensor per map; one traced call."""
    if len({int(values.shape[0]) for values in inputs}) != 1:
        raise ValueError(f'ReSOMMaps: inputs of {[int(v.shape[0]) for v in inputs]} samples do not pair up')
    activities = [
        som_forward(values, book, unit_labels, grid, distance, 'activities', 'rectangular', beta)
        for values, book, unit_labels, grid, beta in zip(inputs, codebooks, labels, grids, betas, strict=True)
    ]
    starts = offsets(tuple(book.shape[0] for book in codebooks))
    for _ in range(iterations):
        if source == 'all':
            lateral = torch.cat(activities, 1) @ matrix  # symmetric: row u is unit u's lateral weights
        else:
            rows = [matrix[start + first_largest(a)] for start, a in zip(starts, activities, strict=True)]
            lateral = torch.stack(rows).sum(0)
        activities = [
            combined(a, lateral[:, start : start + a.shape[1]], combine)
            for a, start in zip(activities, starts, strict=True)
        ]
    every = torch.cat(activities, 1)
    if output == 'activities':
        return every
    if output == 'winners':
        return torch.stack([first_largest(a) for a in activities], 1).to(every.dtype)
    winner = first_largest(every)[:, None]  # the first largest: ties to the lower map
    if output == 'index':
        return winner.to(every.dtype)
    return torch.cat(labels)[winner].to(every.dtype)


torch.fx.wrap('resom_maps_forward')


class ReSOMMaps(ReSOMMapsLearning, torch.nn.Module):
    """M SOMs (inputs of widths[m] values) associated by one Hebbian matrix per pair (module doc).

    grids: one (rows, cols) per map; distance: 'squared_euclidean' (or 'euclidean'), 'manhattan',
    'chebyshev'; source: 'all' or 'bmu'; combine: 'product' or 'sum'; iterations >= 1; output: 'label',
    'index', 'winners', 'activities'; betas: one, or one per map."""

    matrix: torch.Tensor  # a buffer

    def __init__(
        self,
        widths: list[int],
        grids: list[tuple[int, int]],
        distance: str = 'squared_euclidean',
        source: str = 'all',
        combine: str = 'product',
        iterations: int = 1,
        output: str = 'label',
        betas: float | list[float] = 1.0,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.settings = resom_maps_core.make_settings(grids, distance, source, combine, iterations, output, betas)
        if len(widths) != len(self.settings.maps):
            raise ValueError(f'ReSOMMaps: {len(widths)} input widths for {len(self.settings.maps)} maps')
        self.soms = torch.nn.ModuleList(
            SOM(width, m.grid, m.distance, 'activities', m.topology, m.beta, seed=seed + index)
            for index, (width, m) in enumerate(zip(widths, self.settings.maps, strict=True))
        )
        total = sum(self.settings.n_units)
        self.register_buffer('matrix', torch.zeros((total, total)))

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        settings = self.settings
        return resom_maps_forward(
            list(inputs),
            [som.codebook for som in self.soms],
            self.matrix,
            [som.labels for som in self.soms],
            [m.grid for m in settings.maps],
            settings.maps[0].distance,
            settings.source,
            settings.combine,
            settings.iterations,
            settings.output,
            [m.beta for m in settings.maps],
        )

    def extra_repr(self) -> str:
        options = ('source', 'combine', 'iterations', 'output')
        return ', '.join(f'{name}={getattr(self.settings, name)}' for name in options)

    # ---- weights -----------------------------------------------------------------------------------
    def matrix_array(self) -> np.ndarray:
        return self.matrix.detach().cpu().numpy().astype(np.float64)

    def set_matrix(self, matrix: np.ndarray) -> ReSOMMaps:
        self.matrix.copy_(torch.as_tensor(matrix, dtype=self.matrix.dtype))
        return self

    def labels_array(self) -> np.ndarray:
        """One label per unit, map 0's first."""
        return torch.cat([som.labels for som in self.soms]).detach().cpu().numpy().astype(np.float64)

    def set_labels(self, labels: Any) -> ReSOMMaps:
        """One non-negative class per unit, map 0's first (output 'label')."""
        values = np.asarray(labels, dtype=np.float64).reshape(-1)
        if values.shape != (sum(self.settings.n_units),):
            raise ValueError(f'ReSOMMaps.set_labels: expected {sum(self.settings.n_units)} labels, got {values.shape}')
        for som, part in zip(self.soms, np.split(values, np.cumsum(self.settings.n_units)[:-1]), strict=True):
            som.set_labels(part)
        return self

    @classmethod
    def from_settings(cls, settings: ReSOMMapsSettings, codebooks: list[np.ndarray], **kwargs: Any) -> ReSOMMaps:
        """A module with these settings and codebooks ((n_units, n_in) each); kwargs: seed."""
        arguments = resom_maps_core.arguments(settings)
        module = cls([np.shape(codebook)[-1] for codebook in codebooks], **arguments, **kwargs)
        for som, codebook in zip(module.soms, codebooks, strict=True):
            som.set_codebook(codebook)
        return module
