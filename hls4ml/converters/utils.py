"""hls4ml 1.x's `hls4ml.converters.utils`: shape helpers that user handlers and scripts import. The frontends
here use `hls4ml.model.shape_rules`; these give the same numbers in 1.x's tuple layouts."""

from __future__ import annotations

from collections.abc import Sequence

from hls4ml.model.shape_rules import same_padding, window_output


def parse_data_format(input_shape: Sequence[int | None], data_format: str = 'channels_last') -> tuple[int, ...]:
    """The shape of a 1-D, 2-D or 3-D (time-distributed) feature map without its leading batch axis (the first
    entry, `None` or a number), channels last."""
    shape = tuple(input_shape[1:])
    if not 2 <= len(shape) <= 4:
        raise ValueError(f'parse_data_format: a shape of 2 to 4 axes after the batch axis is needed, got {input_shape}')
    layout = data_format.lower()
    if layout == 'channels_last':
        return shape  # type: ignore[return-value]
    if layout != 'channels_first':
        raise ValueError(
            f"parse_data_format: data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    if len(shape) == 4:  # (time, channels, height, width)
        return (shape[0], shape[2], shape[3], shape[1])  # type: ignore[return-value]
    return (*shape[1:], shape[0])  # type: ignore[return-value]


def compute_padding_1d(pad_type: str, in_size: int, stride: int, filt_size: int) -> tuple[int, int, int]:
    """(outputs, left padding, right padding) of a Keras 1-D window: 'same' (the odd one on the right),
    'valid' or 'causal' (all on the left)."""
    padding = pad_type.lower()
    if padding == 'same':
        left, right = same_padding(in_size, filt_size, stride)
    elif padding == 'valid':
        left, right = 0, 0
    elif padding == 'causal':
        left, right = filt_size - 1, 0
    else:
        raise ValueError(f"compute_padding_1d: pad_type must be 'same', 'valid' or 'causal', got {pad_type!r}")
    return window_output(in_size, filt_size, stride, left, right), left, right


def compute_padding_2d(
    pad_type: str,
    in_height: int,
    in_width: int,
    stride_height: int,
    stride_width: int,
    filt_height: int,
    filt_width: int,
) -> tuple[int, int, int, int, int, int]:
    """(out_height, out_width, pad_top, pad_bottom, pad_left, pad_right) of a Keras 2-D 'same' or 'valid' window."""
    if pad_type.lower() not in ('same', 'valid'):
        raise ValueError(f"compute_padding_2d: pad_type must be 'same' or 'valid', got {pad_type!r}")
    out_height, top, bottom = compute_padding_1d(pad_type, in_height, stride_height, filt_height)
    out_width, left, right = compute_padding_1d(pad_type, in_width, stride_width, filt_width)
    return out_height, out_width, top, bottom, left, right
