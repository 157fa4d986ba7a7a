"""Properties of the estimator: monotonic in the reuse factor, honest ranges, FIFOs, parts, unknown kinds."""

from __future__ import annotations

import json

import numpy as np
import pytest
from estimate_models import GraphBuilder, Origin, convert, dense_builder, dense_model, raw_weights

from hls4ml.backends.devices import FAMILIES, family_of, part_of
from hls4ml.estimate.mapping import map_memory, placement
from hls4ml.estimate.primitives import Memory, Multiplier, Range
from hls4ml.model.passes.validate_reuse_factor import valid_reuse_factors


def random_wide_weights(n_in: int, n_out: int, seed: int = 4) -> np.ndarray:
    """Weights whose raw values span 15 bits, so that nearly every constant product is a DSP."""
    raw = np.random.default_rng(seed).integers(2**12, 2**15, (n_in, n_out)) | 1
    return raw_weights(raw)


def fc(estimate):
    (layer,) = [row for row in estimate.layers if row.name == 'fc']
    return layer


@pytest.mark.parametrize('strategy', ['Latency', 'Resource'])
def test_a_higher_reuse_factor_never_adds_dsps_nor_removes_latency(strategy: str) -> None:
    weights = random_wide_weights(16, 8)
    factors = [rf for rf in valid_reuse_factors(16, 8) if rf <= 32]
    rows = [fc(dense_model(weights, reuse_factor=rf, strategy=strategy).estimate()) for rf in factors]
    for fewer, more in zip(rows, rows[1:], strict=False):
        assert more.resources['DSP'].high <= fewer.resources['DSP'].high
        assert more.resources['DSP'].low <= fewer.resources['DSP'].low
        assert more.latency.low >= fewer.latency.low and more.latency.high >= fewer.latency.high
        assert more.interval.low >= fewer.interval.low


def test_every_range_is_ordered_and_rows_of_rough_rules_are_marked_coarse() -> None:
    estimate = dense_model(random_wide_weights(16, 8), reuse_factor=4, strategy='Resource').estimate()
    for layer in [*estimate.layers, estimate.total]:
        for value in [layer.latency, layer.interval, *layer.resources.values()]:
            assert value is not None and value.low <= value.high
    assert estimate.total.coarse  # the dataflow buffers row is coarse
    assert estimate.latency_ns == estimate.latency_cycles.scale(5.0)


def test_str_and_to_dict_round_trip_through_json() -> None:
    estimate = dense_model(random_wide_weights(4, 3)).estimate()
    data = json.loads(json.dumps(estimate.to_dict()))
    assert data['backend'] == 'Vitis' and data['part'] == 'xcvu13p-flga2577-2-e'
    assert [layer['name'] for layer in data['layers']] == ['fc', '(ports)']
    assert data['total']['resources']['DSP'] == {'value': 12, 'low': 12, 'high': 12, 'band': [12, 12]}
    assert data['utilisation_percent']['DSP']['low'] == pytest.approx(100 * 12 / 12288, abs=1e-3)
    text = str(estimate)
    assert 'DSP' in text and 'BRAM_18K' in text and 'total' in text and 'used %' in text


def test_an_unknown_part_gives_no_percentages_and_says_so() -> None:
    estimate = dense_model(random_wide_weights(4, 3)).estimate(part='xcvu19p-fsva3824-2-e')
    assert estimate.available is None and estimate.utilisation() is None
    assert any('not in the device table' in note for note in estimate.notes)
    assert 'used %' not in str(estimate)
    assert dense_model(random_wide_weights(4, 3)).estimate(part='xcu250-figd2104-2L-e').available['DSP'] == 12288


def test_parts_and_families_are_recognised_by_prefix() -> None:
    assert family_of('xcvu13p-flga2577-2-e', 'amd') == (FAMILIES['ultrascale+'], True)
    assert family_of('xcvc1902-vsva2197-2MP-e-S', 'amd')[0].dsp_name == 'DSP58'
    assert family_of('xc7z020clg400-1', 'amd')[0].dsp_name == 'DSP48E1'
    assert family_of('Agilex7', 'intel') == (FAMILIES['agilex7'], True)
    assert family_of('mystery', 'amd') == (FAMILIES['ultrascale+'], False)
    assert part_of('xcu250-figd2104-2L-e').resources['URAM'] == 1280
    assert part_of('Agilex7') is None  # a family, not a device


def test_multiplier_placement_thresholds() -> None:
    assert placement(Multiplier(1, 16, 16)) == 'dsp'
    assert placement(Multiplier(1, 10, 10)) == 'lut'
    assert placement(Multiplier(1, 3, 18)) == 'lut'
    assert placement(Multiplier(1, 8, 16)) == 'either'
    assert placement(Multiplier(1, 16, 16, digits=1)) == 'none'  # a power of two: a shift
    assert placement(Multiplier(1, 16, 16, digits=2)) == 'lut'  # one shifted add
    assert placement(Multiplier(1, 16, 16, digits=3)) == 'either'


def test_fifos_map_to_shift_registers_or_block_ram_by_depth_and_width() -> None:
    family = FAMILIES['ultrascale+']
    small = map_memory(Memory('fifo', 2, 64), family)
    assert small['LUT'] == Range(74, 84) and 'BRAM' not in small  # SRL32: 64 bit lanes + control
    deep = map_memory(Memory('fifo', 4096, 64), family)
    assert deep['BRAM'] == Range(16, 16)  # 4096 x 64: e.g. 4 x 4 RAMB18 as 1K x 18
    middle = map_memory(Memory('fifo', 100, 32), family)
    assert middle['BRAM'] == Range(0, 1) and middle['LUT'].high > middle['LUT'].low


def test_io_stream_models_have_a_fifo_row_per_inner_stream() -> None:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (8,))
    h = builder.dense(Origin('fc', 'Dense'), x, random_wide_weights(8, 6), None)
    h = builder.activation(Origin('act', 'Activation'), h, 'relu')
    y = builder.dense(Origin('out', 'Dense'), h, random_wide_weights(6, 3), None)
    builder.output(y, Origin('y', 'output'))
    model = convert(builder, io_type='io_stream')
    estimate = model.estimate()
    fifos = [layer for layer in estimate.layers if layer.kind == 'FIFO']
    assert [layer.name for layer in fifos] == ['fc fifo', 'act fifo']
    for layer in fifos:
        tensor = model.graph.tensors[layer.name.removesuffix(' fifo')]
        assert f'depth {tensor.fifo_depth} x' in layer.notes[0]
        assert layer.resources['LUT'].low > 0 and layer.resources['BRAM_18K'] == Range(0, 0)
    assert estimate.schedule == 'stream'


def test_a_kind_without_a_rule_gets_a_not_modelled_row_and_stays_out_of_the_totals() -> None:
    builder, y = dense_builder(random_wide_weights(4, 3), activation='relu')
    builder.output(y, Origin('y', 'output'))
    model = convert(builder)
    model.graph.layers['act'].kind = 'SomeFutureKind'  # a kind added after this estimator
    estimate = model.estimate()
    (act,) = [layer for layer in estimate.layers if layer.name == 'act']
    assert not act.modelled and act.latency is None
    assert 'not modelled' in str(estimate)
    assert estimate.total.resources['DSP'] == fc(estimate).resources['DSP']
    assert json.dumps(estimate.to_dict())


def test_every_point_lies_within_its_bounds_in_every_row() -> None:
    for reuse_factor in (1, 4):
        estimate = dense_model(random_wide_weights(8, 4), reuse_factor=reuse_factor).estimate()
        for layer in [*estimate.layers, estimate.total]:
            values = [*layer.resources.values(), *(v for v in (layer.latency, layer.interval) if v is not None)]
            for value in values:
                assert value.low <= value.value <= value.high, (layer.name, value)


def test_plot_draws_latency_and_resources_per_layer(tmp_path) -> None:
    pytest.importorskip('matplotlib', reason='Estimate.plot needs matplotlib (the plot extra)')
    estimate = dense_model(random_wide_weights(4, 3)).estimate()
    figure = estimate.plot(tmp_path / 'estimate.png')
    latency_axes, resource_axes = figure.axes
    assert (tmp_path / 'estimate.png').stat().st_size > 0
    assert [tick.get_text() for tick in resource_axes.get_xticklabels()] == ['fc', '(ports)']
    assert resource_axes.get_ylabel() == '% of the part'  # xcvu13p is in the device table
    from matplotlib.container import BarContainer

    bars = {
        container.get_label(): container
        for container in resource_axes.containers
        if isinstance(container, BarContainer)
    }
    dsp_share = 100 * estimate.layers[0].resources['DSP'].value / 12288
    assert bars['DSP'].patches[0].get_height() == pytest.approx(dsp_share)
    assert latency_axes.get_ylabel() == 'cycles'
