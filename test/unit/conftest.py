"""Shared set-up of the unit tests: a quiet TensorFlow, and IR layers built by hand for pass tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.types import parse_precision

# Before any test module imports keras (nothing above imports TensorFlow).
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')


def add_layer(
    graph: Graph,
    name: str,
    kind: str,
    inputs: Iterable[str] = (),
    output_shape: tuple[int, ...] = (4,),
    weights: dict[str, Any] | None = None,
    types: dict[str, str] | None = None,
    **attributes: Any,
) -> Layer:
    """Add one layer writing the tensor `name` of `output_shape`; `types` are precision strings."""
    layer = Layer(
        name,
        kind,
        list(inputs),
        [name],
        attributes,
        {key: np.asarray(value, dtype=np.float64) for key, value in (weights or {}).items()},
        {var: parse_precision(text) for var, text in (types or {}).items()},
    )
    return graph.add_layer(layer, [output_shape])


@pytest.fixture(scope='session')
def build_layer() -> Callable[..., Layer]:
    """`build_layer(graph, name, kind, inputs, output_shape, weights=..., types=..., **attributes)`."""
    return add_layer
