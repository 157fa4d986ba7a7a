"""Map a vendor-neutral `Cost` onto a device family: DSP blocks, LUTs, registers, block RAMs.

Every rule is in docs/estimator.md ("Mapping"); the thresholds below are the ones named there.
Where the tools may choose either of two implementations (a multiplier in a DSP or in LUTs, a
memory in LUTs or in block RAM) the range spans both choices: low = 0 of the one, high = all of it.
"""

from __future__ import annotations

import math

from hls4ml.backends.devices import Family
from hls4ml.estimate.primitives import ZERO, Cost, Memory, Multiplier, Range

LUT_PRODUCT_BITS = 10  # both operands at most this wide: the product is built in LUTs
NARROW_OPERAND_BITS = 3  # one operand at most this wide: a few shifted adds, in LUTs
DSP_OPERAND_BITS = 11  # both operands at least this wide (and not a cheap constant): a DSP
DSP_GLUE_LUTS = 5  # point: LUTs beside each DSP product (fitted: Dense(1 -> 64) in 62 DSPs reports 381 LUTs)
DSP_CONSTANT_DIGITS = 3  # point estimate: an 'either' constant with this many signed digits goes to a DSP
LUT_MEMORY_BITS = 1024  # a memory of at most this many bits goes to LUTs (distributed RAM / ROM)
BLOCK_MEMORY_BITS = 16384  # at least this many bits (or deeper than BLOCK_DEPTH): block RAM
BLOCK_DEPTH = 1024
INTEL_ROM_COPY_BLOCKS = 3  # oneAPI: M20Ks of one lane's copy of a block-sized ROM (fitted, see _intel_rom_blocks)
SRL_DEPTH = 32  # a FIFO at most this deep is a shift register in LUTs (SRL32)
FIFO_CONTROL = (10, 20)  # LUTs (and as many FFs) of one FIFO's pointers and flags


def placement(multiplier: Multiplier) -> str:
    """Where a multiplier goes: 'none' (zero, or a constant power of two: a shift), 'lut', 'dsp', or
    'either' (widths at which the tools decide by timing and their own heuristics)."""
    digits = multiplier.digits
    if digits is not None and digits <= 1:
        return 'none'
    if digits == 2:
        return 'lut'  # one shifted add
    a, b = multiplier.data_bits, multiplier.coefficient_bits
    if max(a, b) <= LUT_PRODUCT_BITS or min(a, b) <= NARROW_OPERAND_BITS:
        return 'lut'
    if min(a, b) >= DSP_OPERAND_BITS and (digits is None or digits > 3):
        return 'dsp'
    return 'either'


def in_dsp(multiplier: Multiplier, vendor: str = 'amd') -> bool:
    """The point estimate's choice for a multiplier the tools may place either way: AMD's tools put a
    constant of >= DSP_CONSTANT_DIGITS signed digits in a DSP and build sparser ones from adds (fitted on
    the calibration reports: 60 of 64 and 740 of 1,536 constants in DSPs); a product of two variables
    goes to a DSP (on Agilex a block per product at the point: the oneAPI report of 64 ELU products
    counts 64 blocks, not the 32 that pairs of 18 x 19 products would fill). Intel's oneAPI compiler
    built every constant product in ALUTs (0 DSPs in the oneAPI reports of constant-weight layers)."""
    where = placement(multiplier)
    if where in ('none', 'lut'):
        return False
    if multiplier.digits is not None and vendor == 'intel':
        return False
    if where == 'dsp' or multiplier.digits is None:
        return True
    return multiplier.digits >= DSP_CONSTANT_DIGITS


def in_block_ram(bits: int) -> bool | None:
    """Where a memory of `bits` sits by the thresholds above: True (block RAM), False (LUTs), None (either)."""
    return True if bits >= BLOCK_MEMORY_BITS else False if bits <= LUT_MEMORY_BITS else None


def dsps_per_multiplier(family: Family, a: int, b: int) -> Range:
    """DSP blocks of one a x b signed product. Low: the operands split into chunks of the DSP shape;
    high: every chunk after the first is unsigned, so it holds one bit less."""
    costs = []
    for shrink in (0, 1):
        best = math.inf
        for width_a, width_b, cost in family.dsp_shapes:
            for x, y in ((a, b), (b, a)):
                if x <= width_a and y <= width_b:
                    best = min(best, cost)
                    continue
                chunks = math.ceil(x / (width_a - shrink)) * math.ceil(y / (width_b - shrink))
                best = min(best, chunks * cost)
        costs.append(best)
    return Range(costs[0], costs[1])


def lut_multiplier(multiplier: Multiplier) -> Range:
    """LUTs of one multiplier in fabric: a constant is (digits - 1) adders as wide as the shifted sum;
    a variable a x b product about a*b/2 to a*b LUTs (one LUT6 per one or two partial-product bits)."""
    a, b = multiplier.data_bits, multiplier.coefficient_bits
    if multiplier.digits is not None:
        adds = (multiplier.digits - 1) * (a + b)
        return Range(0.75 * adds, 1.25 * adds, adds)
    return Range(a * b / 2, a * b, 0.75 * a * b)


def map_multipliers(cost: Cost, family: Family, vendor: str = 'amd') -> tuple[Range, Range, Range]:
    """(DSP, LUT, FF) of every multiplier of a cost. The range spans the tools' choices; the point takes
    `in_dsp`'s. A DSP's LUT glue (chunks past the first) and the product registers of a fabric
    multiplier are high-end only: the calibration reports show neither (the pipeline registers are the
    schedule's, `schedule.register_stages`)."""
    dsp, lut, ff = ZERO, ZERO, ZERO
    for multiplier in cost.multipliers:
        where = placement(multiplier)
        if where == 'none':
            continue
        count, chosen = multiplier.count, in_dsp(multiplier, vendor)
        blocks = dsps_per_multiplier(family, multiplier.data_bits, multiplier.coefficient_bits).scale(count)
        glue = Range(0, max(blocks.high / count - 1, 0) * (multiplier.data_bits + multiplier.coefficient_bits), 0)
        fabric = lut_multiplier(multiplier).scale(count, count, count)
        out_bits = Range(0, count * (multiplier.data_bits + multiplier.coefficient_bits), 0)
        used = max(blocks.low, count) if vendor == 'intel' else blocks.low  # oneAPI: a block per product
        if where == 'dsp' and (vendor != 'intel' or multiplier.digits is None):
            dsp, lut = dsp + blocks.at(used), lut + glue.scale(count, count, 0) + _dsp_glue(count)
        elif where == 'lut':
            lut, ff = lut + fabric, ff + out_bits
        else:
            dsp_point, lut_point = (used, DSP_GLUE_LUTS * count) if chosen else (0.0, fabric.value)
            dsp = dsp + Range(0, max(blocks.high, dsp_point), dsp_point)
            lut = lut + Range(0, max(fabric.high, lut_point), lut_point)
            ff = ff + out_bits
    return dsp, lut, ff


def _dsp_glue(count: int) -> Range:
    """LUTs around `count` DSP products (their operand and result alignment): DSP_GLUE_LUTS each."""
    return Range(0, DSP_GLUE_LUTS * count, DSP_GLUE_LUTS * count)


def block_count(shapes: tuple[tuple[int, int], ...], words: int, width: int) -> int:
    """Block RAMs holding words x width: the cheapest of the block's layouts."""
    return min(math.ceil(words / depth) * math.ceil(width / bits) for depth, bits in shapes)


def map_memory(memory: Memory, family: Family, vendor: str = 'amd') -> dict[str, Range]:
    """LUT, FF and block RAMs of one memory (replicated for its simultaneous reads). A memory between
    the LUT and block thresholds is either; the point puts it in LUTs (the calibration's 32 x 192-bit line
    buffer of a depthwise convolution used no block RAM)."""
    blocks = block_count(family.memory_shapes, memory.words, memory.width) * math.ceil(memory.reads / 2)
    in_luts = math.ceil(memory.words / family.lutram_depth) * memory.width * memory.reads
    if memory.role == 'fifo':
        return _map_fifo(memory, family, blocks)
    if memory.bits <= LUT_MEMORY_BITS:
        return {'LUT': Range.exact(in_luts)}
    if memory.bits >= BLOCK_MEMORY_BITS or memory.words > BLOCK_DEPTH:
        if vendor == 'intel' and memory.role == 'rom':
            return {'BRAM': _intel_rom_blocks(memory, family, blocks)}
        return {'BRAM': Range.exact(blocks)}
    return {'LUT': Range(0, in_luts, in_luts), 'BRAM': Range(0, blocks, 0)}


def _intel_rom_blocks(memory: Memory, family: Family, shared: int) -> Range:
    """M20Ks of a ROM read by several lanes at once: oneAPI 2025 gave each reading lane its own copy of
    INTEL_ROM_COPY_BLOCKS M20Ks per 1,024 x 20 bits (192 M20Ks for a 1,024-word table read by 64 lanes,
    6 for 2 lanes, in the calibration reports); low: two lanes share a dual-port copy."""
    copy = block_count(family.memory_shapes, memory.words, memory.width) * INTEL_ROM_COPY_BLOCKS
    return Range(shared, max(copy * memory.reads, shared), copy * memory.reads)


def _map_fifo(memory: Memory, family: Family, blocks: int) -> dict[str, Range]:
    control = Range(*FIFO_CONTROL)
    shift_register = math.ceil(memory.words / SRL_DEPTH) * memory.width
    if memory.words <= SRL_DEPTH:
        # the data's registers are its producer's (schedule.stage_registers): the point counts the control
        return {'LUT': control + Range.exact(shift_register), 'FF': control + Range(0, memory.width, 0)}
    if memory.bits >= BLOCK_MEMORY_BITS or memory.words > BLOCK_DEPTH:
        return {'LUT': control, 'FF': control, 'BRAM': Range.exact(blocks)}
    return {'LUT': control + Range(0, shift_register), 'FF': control, 'BRAM': Range(0, blocks)}


def map_cost(cost: Cost, family: Family, vendor: str = 'amd') -> dict[str, Range]:
    """Neutral resources of a cost: DSP, LUT, FF, BRAM (the family's block RAM)."""
    dsp, lut, ff = map_multipliers(cost, family, vendor)
    lut = lut + Range.exact(cost.adder_bits + cost.logic_bits)
    ff = ff + cost.register_bits + Range(0, cost.adder_bits + cost.logic_bits, 0)  # pipeline registers
    totals = {'DSP': dsp, 'LUT': lut, 'FF': ff, 'BRAM': ZERO}
    for memory in cost.memories:
        for name, value in map_memory(memory, family, vendor).items():
            totals[name] = totals[name] + value
    return totals


def bit_operations(cost: Cost) -> Range:
    """Catapult's area proxy: multiplier bit-products, adder and logic bits, register and memory bits."""
    products = 0.0
    for multiplier in cost.multipliers:
        where = placement(multiplier)
        if where == 'none':
            continue
        a, b = multiplier.data_bits, multiplier.coefficient_bits
        each = (multiplier.digits - 1) * (a + b) if multiplier.digits is not None else a * b
        products += multiplier.count * each
    fixed = products + cost.adder_bits + cost.logic_bits + sum(memory.bits for memory in cost.memories)
    return Range.exact(fixed) + cost.register_bits
