"""Checks of the top-level values that reach a generated build script (Tcl, CMake) or the file system:
part, clock period and uncertainty, ASIC libraries, project name, output folder.

Each value is checked at conversion time (`create_config`, reached by every `convert_from_*`, by
`convert_from_config` and by the `hls4ml` command) against a whitelist matched over the WHOLE
value (`re.fullmatch`: `re.match` with `$` lets a trailing newline through). The error names the
key, the value and the form allowed. The templates also quote every value they write
(`backends/common/quoting.py`), so a value that never went through here still cannot run code.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

from hls4ml.backends.devices import FAMILIES, part_of


@dataclass(frozen=True)
class PartForm:
    """What a backend accepts as a part: the whole-value pattern, how to say it, the estimator's vendor."""

    pattern: re.Pattern[str]
    described: str
    vendor: str  # 'amd' or 'intel': which families of the estimator's device table apply


_WORD = r'[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}'
PART_FORMS = {
    'xilinx': PartForm(
        re.compile(_WORD),
        'a Xilinx part name (letters, digits, and . _ + - inside, e.g. xcvu13p-flga2577-2-e)',
        'amd',
    ),
    'intel': PartForm(
        re.compile(f'{_WORD}(:{_WORD})?'),
        'an Intel FPGA family (Agilex7), part number (AGFB014R24B2E2V) or BSP:variant (de10_agilex:B2E2_8GBx4)',
        'intel',
    ),
}
LIBRARY = re.compile(_WORD)  # a Catapult ASIC library name
UNCERTAINTY = re.compile(r'(\d+(\.\d*)?|\.\d+)%?')  # '12.5%' of the period, or ns ('0.5')


def check_part(part: Any, kind: str) -> str:
    """`part` when it has the form of a part of `kind` ('xilinx' or 'intel'), else ValueError."""
    form = PART_FORMS[kind]
    if not isinstance(part, str) or not form.pattern.fullmatch(part):
        raise ValueError(f'part (config key Part) must be {form.described}; got {part!r}')
    return part


def warn_unknown_part(part: str, kind: str, stacklevel: int = 2) -> None:
    """A UserWarning when `part` is neither in the estimator's device table nor a family name: it goes
    to the vendor tool unchecked, and estimate() can give no utilisation %."""
    vendor = PART_FORMS[kind].vendor
    known = part_of(part)
    family = FAMILIES[known.family] if known is not None else FAMILIES.get(part.lower())
    if family is not None and family.vendor == vendor:
        return
    warnings.warn(
        f"part {part!r} is not in hls4ml's device table (docs/estimator.md): it is passed to the vendor tool "
        'unchecked, so a typo shows only there, and estimate() gives no utilisation %',
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def check_clock_period(clock_period: Any) -> None:
    """A positive, finite number of ns (not a bool, not a string)."""
    number = isinstance(clock_period, (int, float)) and not isinstance(clock_period, bool)
    if not number or not math.isfinite(clock_period) or clock_period <= 0:
        raise ValueError(
            f'clock_period (config key ClockPeriod) must be a positive number of ns, e.g. 5; got {clock_period!r}'
        )


def check_clock_uncertainty(uncertainty: Any) -> None:
    """A percentage of the period as a string ('12.5%'), or ns (a number, or its digits: 0.5, '0.5')."""
    if isinstance(uncertainty, (int, float)) and not isinstance(uncertainty, bool):
        valid = math.isfinite(uncertainty) and uncertainty >= 0
    else:
        text = uncertainty if isinstance(uncertainty, str) else ''
        valid = bool(UNCERTAINTY.fullmatch(text)) and not (text.endswith('%') and float(text[:-1]) >= 100)
    if not valid:
        raise ValueError(
            'clock_uncertainty (config key ClockUncertainty) must be a percentage of the clock period below '
            f"100 ('12.5%') or a non-negative number of ns (0.5); got {uncertainty!r}"
        )


def check_library(library: Any) -> str:
    """One Catapult ASIC library name."""
    if not isinstance(library, str) or not LIBRARY.fullmatch(library):
        raise ValueError(
            'asiclibs (config key ASICLibs) must name Catapult libraries: letters, digits, and . _ + - inside '
            f'(e.g. nangate-45nm_beh); got {library!r}'
        )
    return library


def check_output_dir(output_dir: Any) -> str:
    """A non-empty path: '' would write the project into the working directory (and clear its
    firmware/weights); say '.' for that."""
    if not isinstance(output_dir, (str, os.PathLike)):
        raise ValueError(f'output_dir (config key OutputDir) must be a folder path; got {output_dir!r}')
    text = os.fspath(output_dir)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(
            f'output_dir (config key OutputDir) is empty ({output_dir!r}): name the project folder, e.g. '
            "'my-hls-test' ('.' writes into the working directory)"
        )
    if '\x00' in text:
        raise ValueError(f'output_dir (config key OutputDir) must not contain a NUL character; got {output_dir!r}')
    return text
