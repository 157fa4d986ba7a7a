"""The Verilog backend without Verilator or Yosys: the type mapping, what is refused at conversion (and
why), the rendered project (deterministic, nothing written on refusal), the estimate, the Yosys log
parsing and the part -> synth_xilinx family map."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.backends.verilog.build import parse_stat, summarize, xilinx_family  # noqa: E402
from hls4ml.backends.verilog.fixed import UnsupportedInRTL, quantizer  # noqa: E402
from hls4ml.backends.verilog.project import render_rtl  # noqa: E402
from hls4ml.model.types import parse_precision  # noqa: E402

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')


def tiny_mlp(activation: str = 'sigmoid') -> keras.Model:
    keras.utils.set_random_seed(3)
    return keras.Sequential(
        [
            keras.Input((6,), name='features'),
            keras.layers.Dense(5, activation='relu', name='hidden'),
            keras.layers.Dense(3, activation=activation, name='out'),
        ]
    )


def convert(model: keras.Model, tmp_path, precision: str = 'ap_fixed<10,4>', **keywords):
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision=precision)
    config['Model'].update(keywords.pop('model_settings', {}))
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Verilog', **keywords
    )


def test_quantizer_maps_ap_fixed_modes():
    q = quantizer(parse_precision('ap_fixed<10,4,AP_RND,AP_SAT>'), 'x')
    assert (q.signed, q.integer, q.fraction, q.rounding, q.overflow) == (1, 3, 6, 'RND', 'SAT')
    unsigned = quantizer(parse_precision('ap_ufixed<8,2>'), 'x')
    assert (unsigned.signed, unsigned.integer, unsigned.fraction, unsigned.overflow) == (0, 2, 6, 'WRAP')


@pytest.mark.parametrize(
    'spelling', ['ap_fixed<8,3,AP_RND_CONV>', 'ap_fixed<8,3,AP_TRN,AP_SAT_ZERO>', 'ap_fixed<8,3,AP_RND_ZERO>']
)
def test_quantizer_refuses_modes_without_exact_logic(spelling):
    with pytest.raises(UnsupportedInRTL, match='no exact logic'):
        quantizer(parse_precision(spelling), 'layer x result type')


def test_io_stream_is_refused(tmp_path):
    with pytest.raises(ValueError, match="does not support io_type 'io_stream'"):
        convert(tiny_mlp(), tmp_path, io_type='io_stream')


def test_resource_strategy_and_reuse_are_refused_naming_the_layers(tmp_path):
    with pytest.raises(ValueError, match=r"hidden.*reuse factor 2.*strategy 'resource'") as error:
        convert(tiny_mlp(), tmp_path, model_settings={'Strategy': 'Resource', 'ReuseFactor': 2})
    assert not (tmp_path / 'prj').exists()  # refused before anything is written
    assert 'out' in str(error.value)


def test_a_kind_without_logic_is_refused_by_name(tmp_path):
    model = keras.Sequential([keras.Input((4, 3)), keras.layers.LSTM(2, name='memory')])
    with pytest.raises(ValueError, match=r'memory.*LSTM.*no Verilog logic'):
        convert(model, tmp_path)


def test_a_rounding_mode_without_logic_is_refused(tmp_path):
    with pytest.raises(ValueError, match='RND_CONV.*no exact logic'):
        convert(tiny_mlp('linear'), tmp_path, precision='ap_fixed<10,4,AP_RND_CONV>')


def test_rendered_project_is_deterministic_and_complete(tmp_path):
    hls_model = convert(tiny_mlp(), tmp_path)
    first, second = render_rtl(hls_model.design), render_rtl(hls_model.design)
    assert first.files == second.files
    name = hls_model.project_name
    for path in (f'src/{name}.v', f'src/{name}_wrapper.v', f'tb/{name}_tb.v', f'sim/{name}_latency_probe.cc'):
        assert path in first.files
    assert any(path.startswith('src/memfiles/') for path in first.files)  # the sigmoid's ROMs
    assert all(content.endswith('\n') for path, content in first.files.items() if path.endswith('.mem'))
    assert 'WIDTHTRUNC' not in ''.join(first.files.values())  # Verilator 5.006 does not know the code
    written = hls_model.write()
    assert (tmp_path / 'prj' / f'src/{name}_wrapper.v').is_file() and written == str(tmp_path / 'prj')


def test_estimate_counts_luts_and_no_dsp(tmp_path):
    estimate = convert(tiny_mlp(), tmp_path).estimate()
    total = estimate.total.resources
    assert total['LUT'].low > 0 and total['FF'].low > 0 and total['DSP'].high == 0
    assert estimate.latency_cycles.low >= 1 and estimate.interval.low == 1
    assert [row.name for row in estimate.layers] == ['hidden', 'hidden_relu', 'out', 'out_sigmoid']


def test_clock_period_sets_the_pipeline_depth(tmp_path):
    slow = render_rtl(convert(tiny_mlp(), tmp_path, clock_period=20).design)
    fast = render_rtl(convert(tiny_mlp(), tmp_path / 'fast', clock_period=2).design)
    assert fast.stages > slow.stages


STAT = """
=== myproject ===

   Number of wires:                 10
   Number of cells:                 13
     CARRY4                          2
     FDRE                            5
     LUT2                            3
     LUT6                            2
     DSP48E2                         1

"""


def test_yosys_statistics_become_the_vendor_keys():
    report = summarize(parse_stat(STAT))
    assert (report['LUT'], report['FF'], report['CARRY'], report['DSP48E']) == (5, 5, 2, 1)


@pytest.mark.parametrize(
    ('part', 'family'),
    [
        ('xcvu13p-flga2577-2-e', 'xcup'),
        ('xcku115-flvb2104-2-e', 'xcu'),
        ('xc7a100t-csg324-1', 'xc7'),
        ('AGFB014', None),
    ],
)
def test_part_families(part, family):
    assert xilinx_family(part) == family


def test_yosys_scripts_map_roms_to_logic_then_synthesize(tmp_path):
    from hls4ml.backends.verilog.build import yosys_script

    xilinx = yosys_script('top', [tmp_path / 'a.v'], 'xcup')
    generic = yosys_script('top', [tmp_path / 'a.v'], None)
    assert 'memory_map' in xilinx and 'synth_xilinx -top top -family xcup -flatten -noiopad' in xilinx
    assert 'abc -lut 6' in generic and 'synth_xilinx' not in generic
    assert xilinx.rstrip().endswith('stat') and generic.rstrip().endswith('stat')
