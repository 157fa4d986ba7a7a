"""The C-simulation integer multiply-accumulate (nnet_csim_fast.h) against the typed kernels, bit for bit.

One driver (fast_mac_driver.cpp.j2), built as compile() builds the library (-DHLS4ML_CSIM_FAST, C++17),
runs every case on random raw values (full range and small, zeros, negative values) and compares the
raw bits of the integer path with dense_latency / conv_start + conv_pixel + conv_finish. Each case also
states whether the integer path must be taken, so a type rule that silently turns it off (or on where it
is not exact) fails here: wrap and saturation, every rounding mode, products and accumulators near 32 and
64 bits, unsigned data and accumulators, products shifted up, ap and ac faces, depthwise and strided conv.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from subprocess import run

import jinja2
import pytest
from nnet_harness import NNET, OWN_TYPES, WARNING_FLAGS, compile_source, compiler

pytestmark = pytest.mark.csim

SAMPLES = 200


@dataclass(frozen=True)
class MacCase:
    name: str
    data: str
    weight: str
    accum: str
    enabled: bool  # whether the integer path applies
    kind: str = 'dense'
    result: str = 'ap_fixed<18,8>'
    n_in: int = 37
    n_out: int = 19
    n_chan: int = 3
    n_filt: int = 4
    depthwise: bool = False
    stride: int = 1

    @property
    def bias(self) -> str:
        return self.weight


FIXED16 = 'ap_fixed<16,6>'
DENSE_CASES = [
    MacCase('jet_tagging_trn_wrap', FIXED16, FIXED16, FIXED16, True),
    MacCase('rnd', FIXED16, FIXED16, 'ap_fixed<16,6,AP_RND>', True),
    MacCase('rnd_min_inf', FIXED16, FIXED16, 'ap_fixed<16,6,AP_RND_MIN_INF>', True),
    MacCase('rnd_conv_parity', FIXED16, FIXED16, 'ap_fixed<16,6,AP_RND_CONV>', False),
    MacCase('rnd_zero_sign', FIXED16, FIXED16, 'ap_fixed<16,6,AP_RND_ZERO>', False),
    MacCase('rnd_inf_sign', FIXED16, FIXED16, 'ap_fixed<16,6,AP_RND_INF>', False),
    MacCase('trn_zero_sign', FIXED16, FIXED16, 'ap_fixed<16,6,AP_TRN_ZERO>', False),
    MacCase('saturating', FIXED16, FIXED16, 'ap_fixed<16,6,AP_TRN,AP_SAT>', False),
    MacCase('symmetric_saturation', FIXED16, FIXED16, 'ap_fixed<16,6,AP_RND,AP_SAT_SYM>', False),
    MacCase('wrap_with_saturation_bits', FIXED16, FIXED16, 'ap_fixed<16,6,AP_TRN,AP_WRAP,2>', False),
    MacCase('narrow_accum_wraps', 'ap_fixed<8,3>', 'ap_fixed<8,2>', 'ap_fixed<10,6>', True),
    MacCase('narrow_accum_rounds', 'ap_fixed<8,3>', 'ap_fixed<8,2>', 'ap_fixed<10,6,AP_RND>', True),
    MacCase('product_shifted_up', 'ap_fixed<8,4>', 'ap_fixed<8,4>', 'ap_fixed<32,8>', True),
    MacCase('unsigned_data_64bit_word', 'ap_ufixed<16,4>', FIXED16, 'ap_fixed<40,16>', True),
    MacCase('unsigned_accum', FIXED16, FIXED16, 'ap_ufixed<16,8>', True),
    MacCase('product_32_bits_accum_32', 'ap_fixed<16,8>', 'ap_fixed<16,8>', 'ap_fixed<32,16>', True),
    MacCase('product_32_bits_rounding', 'ap_fixed<16,8>', 'ap_fixed<16,8>', 'ap_fixed<24,16,AP_RND>', True),
    MacCase('product_33_bits', 'ap_ufixed<16,8>', 'ap_fixed<16,8>', 'ap_fixed<32,16>', True),
    MacCase('accum_33_bits', FIXED16, FIXED16, 'ap_fixed<33,13>', True),
    MacCase('product_63_bits_accum_64', 'ap_fixed<32,16>', 'ap_fixed<31,8>', 'ap_fixed<64,30>', True),
    MacCase('product_64_bits_rounding', 'ap_fixed<32,16>', 'ap_fixed<32,16>', 'ap_fixed<48,24,AP_RND>', False),
    MacCase('accum_65_bits', FIXED16, FIXED16, 'ap_fixed<65,20>', False),
    MacCase('large_drop', 'ap_fixed<16,0>', 'ap_fixed<16,0>', 'ap_fixed<16,14>', True),
    MacCase('integer_data', 'ap_int<12>', 'ap_fixed<10,3>', 'ap_fixed<24,12>', True),
    MacCase(
        'ac_default_modes',
        'ac_fixed<16,6,true>',
        'ac_fixed<16,6,true>',
        'ac_fixed<16,6,true>',
        True,
        result='ac_fixed<18,8,true>',
    ),
    MacCase(
        'ac_rnd',
        'ac_fixed<16,6,true>',
        'ac_fixed<16,6,true>',
        'ac_fixed<20,8,true,AC_RND>',
        True,
        result='ac_fixed<18,8,true>',
    ),
    MacCase(
        'ac_saturating',
        'ac_fixed<16,6,true>',
        'ac_fixed<16,6,true>',
        'ac_fixed<16,6,true,AC_TRN,AC_SAT>',
        False,
        result='ac_fixed<18,8,true>',
    ),
]
CONV_CASES = [
    MacCase('conv_jet_types', FIXED16, FIXED16, FIXED16, True, kind='conv'),
    # 16-bit lanes (integer_mac::halves): every shift of the product's halves, and unsigned data
    MacCase('conv_8_filters', FIXED16, FIXED16, FIXED16, True, kind='conv', n_filt=8, n_chan=3),
    MacCase('conv_no_drop', 'ap_fixed<8,4>', 'ap_fixed<8,4>', 'ap_fixed<16,8>', True, kind='conv'),
    MacCase('conv_shifted_up', 'ap_fixed<8,6>', 'ap_fixed<8,6>', 'ap_fixed<16,10>', True, kind='conv'),
    MacCase('conv_drop_15', 'ap_fixed<16,8>', 'ap_fixed<16,9>', 'ap_fixed<16,16>', True, kind='conv', n_filt=16),
    MacCase('conv_drop_1', 'ap_fixed<12,4>', 'ap_fixed<10,3>', 'ap_fixed<13,-1>', True, kind='conv'),
    MacCase('conv_unsigned_15_bits', 'ap_ufixed<15,5>', FIXED16, 'ap_fixed<12,6>', True, kind='conv'),
    MacCase('conv_accum_17_bits', FIXED16, FIXED16, 'ap_fixed<17,7>', True, kind='conv'),
    MacCase('conv_rnd_strided', FIXED16, FIXED16, 'ap_fixed<14,6,AP_RND>', True, kind='conv', stride=2),
    MacCase(
        'conv_depthwise',
        'ap_fixed<8,3>',
        'ap_fixed<8,2>',
        'ap_fixed<12,6>',
        True,
        kind='conv',
        n_filt=6,
        depthwise=True,
    ),
    MacCase('conv_saturating', FIXED16, FIXED16, 'ap_fixed<16,6,AP_TRN,AP_SAT>', False, kind='conv'),
]
CASES = DENSE_CASES + CONV_CASES


@pytest.fixture(scope='module')
def driver_output() -> dict[str, tuple[bool, int, int]]:
    if compiler() is None:
        pytest.skip('no C++ compiler')
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent), undefined=jinja2.StrictUndefined, trim_blocks=True
    )
    source = environment.get_template('fast_mac_driver.cpp.j2').render(cases=CASES, samples=SAMPLES)
    flags = [*WARNING_FLAGS, '-std=c++17', '-O1', '-DHLS4ML_CSIM_FAST', '-isystem', str(OWN_TYPES), f'-I{NNET}']
    executable = compile_source(source, flags, [OWN_TYPES, NNET], 'csim-fast-mac')
    process = run([str(executable)], capture_output=True, text=True, check=True)
    results = {}
    for line in process.stdout.splitlines():
        name, enabled, differences, compared = line.split()
        results[name] = (enabled == '1', int(differences), int(compared))
    return results


@pytest.mark.parametrize('case', CASES, ids=lambda case: case.name)
def test_integer_path_is_bit_exact(driver_output, case: MacCase) -> None:
    enabled, differences, compared = driver_output[case.name]
    assert enabled == case.enabled, f'{case.name}: integer path {"taken" if enabled else "not taken"}'
    assert compared == SAMPLES * _outputs(case)
    assert differences == 0, f'{case.name}: {differences} of {compared} results differ from the typed kernel'


def _outputs(case: MacCase) -> int:
    """Result values per sample: the driver's conv input is 5x4 pixels, padded by 1, with 3x3 windows."""
    if case.kind == 'dense':
        return case.n_out
    return ((5 + 2 - 3) // case.stride + 1) * ((4 + 2 - 3) // case.stride + 1) * case.n_filt
