"""Dense along the last axis of a tensor of any rank, as the frontends lower it (docs/sequence.md).

Keras `Dense`, PyTorch `nn.Linear` and ONNX `MatMul`/`Gemm` apply one (n_in, n_out) matrix to every
row of a `(*rows, n_in)` tensor. That is exactly a pointwise convolution (window 1, stride 1, no
padding) over the row axes, so the IR holds it as one: a Conv1D over one row axis, a Conv2D over
two, and over three or more row axes a Conv1D between two Reshapes that flatten the rows and restore
them (free in both IO types). The convolution kinds already have everything a Dense has (the
strategies, `ReuseFactor`, io_stream with one row per stream element, the estimator), and a
LayerName or LayerType 'Dense' entry reaches the convolution through its framework name and class.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.model.kinds import CONV_OF_RANK, KindRecord

AXES = {1: ('width',), 2: ('height', 'width')}
PADS = {'height': ('pad_top', 'pad_bottom'), 'width': ('pad_left', 'pad_right')}


def convolution_rows(rows: tuple[int, ...]) -> tuple[int, ...]:
    """The row axes the pointwise convolution runs over: `rows` itself for one or two axes, else all
    rows flattened into one axis (the frontend reshapes before and after)."""
    return rows if len(rows) <= 2 else (math.prod(rows),)


def pointwise_dense(
    rows: tuple[int, ...], kernel: np.ndarray, bias: np.ndarray
) -> tuple[KindRecord, dict[str, np.ndarray], dict[str, Any]]:
    """The convolution kind, weights and attributes of a dense layer with `kernel` (n_in, n_out)
    applied to every row of a `(*rows, n_in)` tensor with one or two row axes."""
    if len(rows) not in AXES:
        raise ValueError(f'a pointwise convolution runs over one or two row axes, got {rows}')
    n_in, n_out = kernel.shape
    rank = len(rows)
    attributes: dict[str, Any] = {'n_chan': n_in, 'n_filt': n_out, 'data_format': 'channels_last'}
    for axis, size in zip(AXES[rank], rows, strict=True):
        attributes.update({f'in_{axis}': size, f'out_{axis}': size, f'filt_{axis}': 1, f'stride_{axis}': 1})
        attributes.update({pad: 0 for pad in PADS[axis]})
    weight = np.asarray(kernel, dtype=np.float64).reshape((1,) * rank + (n_in, n_out)).copy()
    return CONV_OF_RANK[rank], {'weight': weight, 'bias': np.asarray(bias, dtype=np.float64)}, attributes
