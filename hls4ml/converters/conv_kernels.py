"""Convolution kernels rewritten so that a plain convolution computes the same thing, bit for bit:
a dilated kernel is the kernel with zeros between its taps, a grouped one is block diagonal (zeros
between the groups), and a transposed convolution is a plain one with the kernel flipped and its
channel axes swapped, over the input with zeros inserted between its values (the Gather in front,
`transposed_input`). The zeros are constant products by zero: the unrolled (Latency) kernels drop
them, and every sum is unchanged. Kernels here are in PyTorch's layout (out, in / groups, *window)."""

from __future__ import annotations

import numpy as np


def dilated(kernel: np.ndarray, dilations: tuple[int, ...]) -> np.ndarray:
    """The kernel with dilation - 1 zeros between neighbouring taps of each spatial axis."""
    if all(int(step) == 1 for step in dilations):
        return kernel
    window = kernel.shape[2:]
    spread = tuple((length - 1) * int(step) + 1 for length, step in zip(window, dilations, strict=True))
    result = np.zeros((*kernel.shape[:2], *spread))
    taps = tuple(slice(None, None, int(step)) for step in dilations)
    result[(slice(None), slice(None), *taps)] = kernel
    return result


def block_diagonal(kernel: np.ndarray, groups: int, channels: int) -> np.ndarray:
    """A grouped kernel (out, channels / groups, *window) as the full (out, channels, *window) one:
    filter o reads only the input channels of its group o // (out / groups)."""
    filters, per_group = kernel.shape[0], kernel.shape[1]
    if groups == 1:
        return kernel
    if filters % groups or per_group * groups != channels:
        raise ValueError(f'{groups} groups do not divide {channels} input and {filters} output channels')
    result = np.zeros((filters, channels, *kernel.shape[2:]))
    outputs = filters // groups
    for filter_index in range(filters):
        group = filter_index // outputs
        result[filter_index, group * per_group : (group + 1) * per_group] = kernel[filter_index]
    return result


def transposed_kernel(kernel: np.ndarray, groups: int) -> np.ndarray:
    """A transposed convolution's kernel (in, out / groups, *window) as the plain convolution's
    (out, in, *window) over the zero-inserted input: each group's axes swapped, the window flipped."""
    channels, per_group = kernel.shape[0], kernel.shape[1]
    inputs = channels // groups
    blocks = [np.swapaxes(kernel[group * inputs : (group + 1) * inputs], 0, 1) for group in range(groups)]
    swapped = block_diagonal(np.concatenate(blocks, axis=0), groups, channels) if groups > 1 else blocks[0]
    assert swapped.shape[:2] == (per_group * groups, channels)
    return np.flip(swapped, axis=tuple(range(2, kernel.ndim))).copy()


def transposed_input(
    positions: np.ndarray,
    strides: tuple[int, ...],
    window: tuple[int, ...],
    pads: list[tuple[int, int]],
    output_padding: tuple[int, ...],
) -> np.ndarray:
    """What a transposed convolution's plain twin reads, from `positions` (channels first, (C, *spatial),
    any values): each value followed by stride - 1 zeros, window - 1 - pad zeros before and after (plus
    output_padding after); -1 marks a zero."""
    spatial = positions.shape[1:]
    grown = [(size - 1) * stride + 1 for size, stride in zip(spatial, strides, strict=True)]
    edges = [
        (length - 1 - before, length - 1 - after + extra)
        for length, (before, after), extra in zip(window, pads, output_padding, strict=True)
    ]
    if any(low < 0 or high < 0 for low, high in edges):
        raise ValueError(f'padding {pads} larger than the window {window} less one is not supported')
    full = [low + size + high for size, (low, high) in zip(grown, edges, strict=True)]
    result = np.full((positions.shape[0], *full), -1, dtype=np.int64)
    target = tuple(slice(low, low + size, stride) for (low, _), size, stride in zip(edges, grown, strides, strict=True))
    result[(slice(None), *target)] = positions
    return result
