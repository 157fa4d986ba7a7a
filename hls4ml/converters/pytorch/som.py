"""Self-organizing maps: `hls4ml.nn.torch_som.SOM` and `hls4ml.nn.torch_resom.ReSOM`, whose forward passes
are one traced call each (`som_forward`, `resom_forward`: torch.fx.wrap), so they reach these handlers
with their codebooks, lateral matrix and labels as constants. Both are module forwards: the IR layer
is named after the module ('som', 'encoder.som'), not after the call."""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, constant, module_forwards, tensor
from hls4ml.model.som_graphs import som_layer_parts
from hls4ml.nn import resom_maps_core
from hls4ml.nn.resom_core import layer_parts, make_settings
from hls4ml.nn.torch_resom import resom_forward
from hls4ml.nn.torch_resom_maps import resom_maps_forward
from hls4ml.nn.torch_som import som_forward


@module_forwards(som_forward)
def som(
    step: Step,
    x: Any,
    codebook: Any,
    labels: Any,
    grid: tuple[int, int],
    distance: str,
    output: str,
    topology: str,
    beta: float,
) -> Value:
    """One SOM layer; the checks of `som_layer_parts` (shapes, NaN codebooks, settings) name the module."""
    x = tensor(step, x)
    weights = constant(step, codebook, 'the SOM codebook')
    unit_labels = constant(step, labels, 'the SOM labels') if output == 'label' else None
    try:
        attributes, arrays = som_layer_parts(
            weights, grid, distance, output, unit_labels, topology, beta, str(step.origin)
        )
    except ValueError as error:
        raise step.refuse(str(error).removeprefix(f'{step.origin}: ')) from error
    return step.builder.som(step.origin, x, attributes, arrays)


@module_forwards(resom_forward)
def resom(
    step: Step,
    x: Any,
    y: Any,
    codebook_x: Any,
    codebook_y: Any,
    lateral: Any,
    labels_x: Any,
    labels_y: Any,
    grid_x: tuple[int, int],
    grid_y: tuple[int, int],
    distance: str,
    source: str,
    combine: str,
    iterations: int,
    output: str,
    beta_x: float,
    beta_y: float,
) -> Value:
    """One ReSOM layer of inputs x and y; the checks of `resom_core` (settings, shapes, NaN, negative
    lateral weights) name the module."""
    x, y = tensor(step, x, 'the x input'), tensor(step, y, 'the y input')
    where = str(step.origin)
    codebooks = (constant(step, codebook_x, 'codebook x'), constant(step, codebook_y, 'codebook y'))
    weights = constant(step, lateral, 'the lateral matrix')
    labels = np.concatenate([constant(step, labels_x, 'labels x'), constant(step, labels_y, 'labels y')])
    try:
        settings = make_settings(
            grid_x, grid_y, distance, source, combine, iterations, output, beta_x, beta_y, where=where
        )
        attributes, arrays = layer_parts(codebooks, weights, labels, settings, where)
    except ValueError as error:
        raise step.refuse(str(error).removeprefix(f'{where}: ')) from error
    return step.builder.resom(step.origin, x, y, attributes, arrays)


@module_forwards(resom_maps_forward)
def resom_maps(
    step: Step,
    inputs: list[Any],
    codebooks: list[Any],
    matrix: Any,
    labels: list[Any],
    grids: list[tuple[int, int]],
    distance: str,
    source: str,
    combine: str,
    iterations: int,
    output: str,
    betas: list[float],
) -> Value:
    """One ReSOMMaps layer of M inputs; the checks of `resom_maps_core` (settings, the block matrix's
    symmetry, shapes, NaN, negative lateral weights) name the module."""
    values = [tensor(step, value, f'input {index}') for index, value in enumerate(inputs)]
    where = str(step.origin)
    books = [constant(step, book, f'codebook {index}') for index, book in enumerate(codebooks)]
    unit_labels = np.concatenate([constant(step, part, f'labels {index}') for index, part in enumerate(labels)])
    try:
        settings = resom_maps_core.make_settings(grids, distance, source, combine, iterations, output, betas, where)
        laterals = resom_maps_core.check_matrix(constant(step, matrix, 'the lateral matrix'), settings, where)
        attributes, arrays = resom_maps_core.layer_parts(books, laterals, unit_labels, settings, where)
    except ValueError as error:
        raise step.refuse(str(error).removeprefix(f'{where}: ')) from error
    return step.builder.resom_maps(step.origin, values, attributes, arrays)
