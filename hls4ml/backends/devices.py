"""Device facts: part capacities and families (the part check of every backend, the utilisation of
estimate()) and what the estimator costs with: DSP multiplier shapes, memory blocks, delays.

The sources of every number are listed in docs/estimator.md ("Device facts"). Capacities are from
the vendors' product tables as remembered, not re-read for this file: check them before quoting a
utilisation percentage in a paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """One device family: what its blocks can do and how fast its fabric is.

    `dsp_shapes`: the signed multiplier shapes one DSP block implements, with the DSPs each costs
    (Agilex packs two 18x19 products in one block: 0.5 each). `memory_shapes`: (words, width) layouts
    of one block RAM. `speed`: delays are multiplied by it (1.0 is an
    UltraScale+ -2 part)."""

    name: str
    vendor: str  # 'amd' or 'intel'
    dsp_name: str
    dsp_shapes: tuple[tuple[int, int, float], ...]
    memory_name: str
    memory_shapes: tuple[tuple[int, int], ...]
    lutram_depth: int  # words of one bit per LUT used as memory (LUT6: 64x1; an Agilex MLAB: 32x20 in 20 ALUTs)
    speed: float
    has_uram: bool = False


RAMB18 = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
M20K = ((16384, 1), (8192, 2), (4096, 5), (2048, 10), (1024, 20), (512, 40))

FAMILIES = {
    family.name: family
    for family in (
        Family('7series', 'amd', 'DSP48E1', ((25, 18, 1),), 'BRAM_18K', RAMB18, 64, 1.3),
        Family('ultrascale', 'amd', 'DSP48E2', ((27, 18, 1),), 'BRAM_18K', RAMB18, 64, 1.1),
        Family('ultrascale+', 'amd', 'DSP48E2', ((27, 18, 1),), 'BRAM_18K', RAMB18, 64, 1.0, has_uram=True),
        Family('versal', 'amd', 'DSP58', ((27, 24, 1),), 'BRAM_18K', RAMB18, 64, 0.9, has_uram=True),
        Family('agilex7', 'intel', 'DSP', ((18, 19, 0.5), (27, 27, 1)), 'M20K', M20K, 32, 0.9),
        Family('stratix10', 'intel', 'DSP', ((18, 19, 0.5), (27, 27, 1)), 'M20K', M20K, 32, 1.0),
        Family('arria10', 'intel', 'DSP', ((18, 19, 0.5), (27, 27, 1)), 'M20K', M20K, 32, 1.2),
    )
}


@dataclass(frozen=True)
class Part:
    """Capacities of one device, in the units its vendor's report uses."""

    name: str
    family: str
    resources: dict[str, int]


def _amd(name: str, family: str, lut: int, ff: int, dsp: int, bram18: int, uram: int = 0) -> Part:
    return Part(name, family, {'DSP': dsp, 'LUT': lut, 'FF': ff, 'BRAM_18K': bram18, 'URAM': uram})


def _intel(name: str, family: str, alut: int, reg: int, ram: int, dsp: int) -> Part:
    return Part(name, family, {'ALUT': alut, 'REG': reg, 'RAM': ram, 'DSP': dsp})


PARTS = {
    part.name: part
    for part in (
        _amd('xcvu13p', 'ultrascale+', 1_728_000, 3_456_000, 12_288, 5_376, 1_280),
        _amd('xcvu9p', 'ultrascale+', 1_182_240, 2_364_480, 6_840, 4_320, 960),
        _amd('xcu250', 'ultrascale+', 1_728_000, 3_456_000, 12_288, 5_376, 1_280),  # a VU13P die
        _amd('xcu200', 'ultrascale+', 1_182_240, 2_364_480, 6_840, 4_320, 960),  # a VU9P die
        _amd('xczu9eg', 'ultrascale+', 274_080, 548_160, 2_520, 1_824),
        _amd('xcku115', 'ultrascale', 663_360, 1_326_720, 5_520, 4_320),
        _amd('xc7z020', '7series', 53_200, 106_400, 220, 280),
        _amd('xc7vx690t', '7series', 433_200, 866_400, 3_600, 2_940),
        _amd('xcvc1902', 'versal', 899_840, 1_799_680, 1_968, 1_934, 463),
        _intel('agfb014r24b', 'agilex7', 974_400, 1_948_800, 7_110, 4_510),
    )
}

FAMILY_PREFIXES = (  # longest prefixes first; lower-case part names
    ('xc7', '7series'),
    ('xcvu', 'ultrascale+'),  # xcvu*p are UltraScale+; xcvu095/125/190/440 are UltraScale (same DSP48E2)
    ('xcku', 'ultrascale'),
    ('xczu', 'ultrascale+'),
    ('xcu', 'ultrascale+'),  # Alveo cards
    ('xcv', 'versal'),  # xcvc, xcvm, xcvp, xcve, xcvh (xcvu is caught above)
    ('xqzu', 'ultrascale+'),
    ('agilex', 'agilex7'),
    ('agf', 'agilex7'),
    ('agi', 'agilex7'),
    ('stratix10', 'stratix10'),
    ('1s', 'stratix10'),
    ('arria10', 'arria10'),
    ('10ax', 'arria10'),
)


def family_of(part: str | None, vendor: str) -> tuple[Family, bool]:
    """The family of a part name, and whether it was recognised (else the vendor's default family:
    UltraScale+ for AMD, Agilex 7 for Intel)."""
    name = (part or '').lower()
    for prefix, family in FAMILY_PREFIXES:
        if name.startswith(prefix) and FAMILIES[family].vendor == vendor:
            return FAMILIES[family], True
    return FAMILIES['ultrascale+' if vendor == 'amd' else 'agilex7'], False


def part_of(part: str | None) -> Part | None:
    """The capacities of a part ('xcvu13p-flga2577-2-e' matches 'xcvu13p'); None if not in the table."""
    name = (part or '').lower()
    for known in sorted(PARTS, key=len, reverse=True):
        if name.startswith(known):
            return PARTS[known]
    return None


DSP_INPUTS = (27, 18)  # the narrowest DSP multiplier of the families in the table


def surely_fits(part: Part, products: int, data_bits: int, weight_bits: int, accum_bits: int) -> bool:
    """True when even every product as a full array multiplier plus its adder in LUTs (data bits x weight
    bits + accumulator bits), and as DSP blocks of the narrowest kind, fits the part: far more than the
    estimator ever counts, so the conversion's oversize check need not run (nor import) the estimator."""
    luts = part.resources.get('LUT') or part.resources.get('ALUT') or 0
    dsps = part.resources.get('DSP') or 0
    wide, narrow = max(data_bits, weight_bits), min(data_bits, weight_bits)
    blocks = math.ceil(wide / DSP_INPUTS[0]) * math.ceil(narrow / DSP_INPUTS[1])
    return products * (data_bits * weight_bits + accum_bits) <= luts and products * blocks <= dsps
