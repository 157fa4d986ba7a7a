"""The C-simulation library's weights as data, not code.

A large model's weight headers are hundreds of thousands of decimal literals, and parsing them was
most of g++'s time. The simulation's source tree therefore swaps each `weights/<name>.h` for a
header (`csim_array.h.j2`) that embeds `<name>.bin`, the very doubles those literals spell, raw,
with the assembler's `.incbin`; the library converts them to the array's type when it loads, as the
literal header's C-simulation branch does, so it holds the same bits. The HLS project on disk keeps
its literal headers (the vendor tools read those). The blobs are files of the source tree, so the
compile cache's key covers them.
"""

from __future__ import annotations

import jinja2
import numpy as np

from hls4ml.backends.common.records import ConstArray

CSIM_WEIGHTS_TEMPLATE = 'common/firmware/weights/csim_array.h.j2'


def weights_as_data(
    files: dict[str, bytes], arrays: list[ConstArray], environment: jinja2.Environment, firmware: str
) -> dict[str, bytes]:
    """`files` (the simulation's sources) with every array's literal header replaced by its
    data-embedding twin, plus the blob that twin embeds."""
    template = environment.get_template(CSIM_WEIGHTS_TEMPLATE)
    swapped = dict(files)
    for array in arrays:
        header = f'{firmware}/weights/{array.name}.h'
        if header not in swapped:
            raise ValueError(f'the constant array {array.name!r} has no header {header} among the written files')
        blob = f'{firmware}/weights/{array.name}.bin'
        symbol = f'hls4ml_csim_{array.name}'
        swapped[header] = template.render(a=array, blob=blob, symbol=symbol).encode()
        swapped[blob] = raw_doubles(array)
    return swapped


def raw_doubles(array: ConstArray) -> bytes:
    """The array's values as native doubles; -0.0 becomes 0.0, as the literal header prints it ('0')."""
    values = np.ascontiguousarray(array.doubles, dtype=np.float64).ravel() + 0.0
    if values.size != array.size:
        raise ValueError(f'the constant array {array.name!r} has {values.size} doubles for {array.size} values')
    return values.tobytes()
