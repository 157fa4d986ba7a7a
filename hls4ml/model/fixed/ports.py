"""Fixed-point values on the uniform ports of the RTL (the Verilog backend's wrapper): one format for
every value of a side, values as raw two's-complement integers, packed side by side into one word.

    port = PortFormat(signed=1, integer=3, fraction=4, count=6)
    raw = raw_inputs([x], [input_type], [6], port)    # (n, 6) int32: x written into its type, then scaled
    words = pack_words(raw, port)                     # one hex word a sample: value k at bits [8k, 8k + 8)
    values = port_values(unpack_words(words, port), port)

The Verilator binding (hls4ml/csim/rtl.py) moves the integers through memory; the written testbench
reads and writes the packed words; both use these so that they agree bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.fixed.array import quantize
from hls4ml.model.types import PrecisionType


@dataclass(frozen=True)
class PortFormat:
    """The uniform fixed-point format of one side of the wrapper: every value sign-extended to it."""

    signed: int
    integer: int
    fraction: int
    count: int

    @property
    def width(self) -> int:
        return self.signed + self.integer + self.fraction


def raw_inputs(
    arrays: Sequence[Any], types: Sequence[PrecisionType], sizes: Sequence[int], port: PortFormat
) -> tuple[np.ndarray, bool]:
    """The inputs written into their types (with their modes, as the C-simulation's bridge does) as
    the integers of the port: (n_samples, port.count) int32; and whether it was one unbatched sample."""
    columns, single = [], False
    for array, size, precision in zip(arrays, sizes, types, strict=True):
        values = np.asarray(array, dtype=np.float64)
        single |= values.ndim == 1 and values.size == size
        columns.append(quantize(values.reshape(-1, size), precision, 'ap').to_double())
    samples = {column.shape[0] for column in columns}
    if len(samples) != 1:
        raise ValueError(f'inputs have different numbers of samples: {sorted(samples)}')
    scaled = np.concatenate(columns, axis=1) * 2.0**port.fraction
    return np.ascontiguousarray(scaled.astype(np.int64).astype(np.int32)), single


def port_values(raw: np.ndarray, port: PortFormat) -> np.ndarray:
    """The port's integers (their low `port.width` bits, sign-extended when signed) as values."""
    modulus = 1 << port.width
    unsigned = raw.astype(np.int64) & (modulus - 1)
    signed = np.where(unsigned >= modulus >> 1, unsigned - modulus, unsigned) if port.signed else unsigned
    return signed.astype(np.float64) * 2.0**-port.fraction


def pack_words(raw: np.ndarray, port: PortFormat) -> list[str]:
    """Each row of port integers as one hex word, value k in bits [width*k, width*(k+1))."""
    mask, digits = (1 << port.width) - 1, -(-port.width * port.count // 4)
    words = []
    for row in np.asarray(raw, dtype=np.int64):
        word = 0
        for index, value in enumerate(row.tolist()):
            word |= (value & mask) << (port.width * index)
        words.append(f'{word:0{digits}x}')
    return words


def unpack_words(words: Sequence[str], port: PortFormat) -> np.ndarray:
    """Hex words (as pack_words writes them) back into (n, port.count) integers of the port's width."""
    mask = (1 << port.width) - 1
    rows = []
    for word in words:
        packed = int(word, 16)
        rows.append([(packed >> (port.width * index)) & mask for index in range(port.count)])
    return np.asarray(rows, dtype=np.int64).reshape(len(rows), port.count)
