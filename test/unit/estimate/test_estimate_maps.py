"""The rules of the seed kinds (hls4ml/estimate/kinds_maps.py, kinds_selection.py): a ReSOM counted by
hand from nnet_resom.h, the SOM's activity roots, the routers' tables, the reuse factor, and every
seed kind (and every IR kind but Input) estimated."""

from __future__ import annotations

import numpy as np
import pytest
from estimate_models import GraphBuilder, Origin, convert

from hls4ml.backends.devices import family_of
from hls4ml.converters.resom import resom_graph
from hls4ml.converters.som import som_graph
from hls4ml.estimate import kinds_maps, kinds_selection
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.model import RULES
from hls4ml.estimate.primitives import Memory, Multiplier, Range
from hls4ml.model.graph import ModelGraph
from hls4ml.model.kinds import LAYER_KINDS
from hls4ml.model.reference.soft_topk import layer_soft_topk_types
from hls4ml.model.reference.som import activity_table
from hls4ml.utils.config import config_from_graph, create_config

CODEBOOK_X = np.array([[0.25, 0.5], [0.75, 0.125], [0.5, 0.5], [0.0, 1.0]])  # a 2 x 2 map of 2 inputs
CODEBOOK_Y = np.array(
    [[0.5, 0.25, 0.0], [0.125, 0.75, 1.0], [0.5, 0.5, 0.5], [1.0, 0.0, 0.25], [0.25] * 3, [0, 0.5, 1]]
)
# H (4 x 6): 11 nonzero entries, all powers of two (shifts) but one 0.75 = 1 - 1/4 (two signed digits)
LATERAL = np.array([[1, 0, 0.5, 0, 0.25, 0], [0, 1, 0, 0.5, 0, 0], [0.5, 0, 1, 0, 0, 0.75], [0, 0.25, 0, 1, 0.5, 0]])


def graph_model(graph, origin, io_type: str = 'io_parallel', reuse_factor: int = 1) -> ModelGraph:
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis', io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<8,2>', reuse_factor, None)
    return ModelGraph(config, graph, origin)


def resom_model(io_type: str = 'io_parallel', reuse_factor: int = 1, **options) -> ModelGraph:
    labels = {'labels_x': np.arange(4) % 2, 'labels_y': np.arange(6) % 2}
    graph, origin = resom_graph(CODEBOOK_X, (2, 2), CODEBOOK_Y, (2, 3), LATERAL, **labels, **options)
    return graph_model(graph, origin, io_type, reuse_factor)


def rule_model(model: ModelGraph, name: str, rule=None):
    """The LayerModel of one layer, straight from its rule (the cost before the device mapping)."""
    family, _ = family_of('xcvu13p-flga2577-2-e', 'amd')
    ctx = RuleContext(model.graph, family, 3.65, model.config['IOType'] == 'io_stream')
    layer = model.graph.layers[name]
    return (rule or RULES[layer.kind])(layer, ctx)


def row(model: ModelGraph, name: str):
    (found,) = [layer for layer in model.estimate().layers if layer.name == name]
    return found


def shapes(multipliers: list[Multiplier]) -> list[tuple]:
    return sorted((m.count, m.data_bits, m.coefficient_bits, m.digits or 0) for m in multipliers)


def test_resom_multipliers_and_tables_by_hand() -> None:
    """fixed<8,2> inputs, 8-bit codebooks: differences of 9 bits. Inferred: accum_x ufixed<18,4> (roots
    ufixed<9,2>), accum_y ufixed<19,5> (roots ufixed<10,3>), activity ufixed<8,1>, lateral ufixed<8,1>,
    lateral_accum ufixed<17,3>, remainder ufixed<26,5>."""
    model = resom_model(output='label')
    layer = model.graph.layers['resom']
    assert (str(layer.types['activity']), str(layer.types['lateral_accum'])) == ('ufixed<8,1>', 'ufixed<17,3>')
    cost = rule_model(model, 'resom').cost
    expected = [
        (4 * 2, 9, 9, 0),  # x: 4 units x 2 inputs, diff * diff
        (6 * 3, 9, 9, 0),  # y: 6 units x 3 inputs
        *[(4 + 1, bits, bits, 0) for bits in range(1, 10)],  # x roots: 4 units + the BMU's, 9 steps
        *[(6 + 1, bits, bits, 0) for bits in range(1, 11)],  # y roots: 10 steps
        (2 * 10, 8, 2, 1),  # H act_y and H^T act_x: 10 powers of two (shifts), twice
        (2 * 1, 8, 3, 2),  # the 0.75 entry, twice: one shifted add
        (4, 8, 17, 0),  # x: act * lateral
        (6, 8, 17, 0),  # y
    ]
    assert shapes(cost.multipliers) == sorted(expected)
    assert cost.memories == [
        Memory('rom', 1024, 8, 4, label='activity table'),
        Memory('rom', 1024, 8, 6, label='activity table'),
    ]
    resources = row(model, 'resom').resources
    assert resources['DSP'] == Range(0, 10)  # only the 10 products 8 x 17 may go to DSPs
    assert resources['BRAM_18K'] == Range(0, 2 + 3)  # 8 Kbit tables: either; 4 and 6 reads, 2 per block


def test_a_second_resom_round_adds_one_round_of_lateral_products_and_divisions() -> None:
    one, two = (rule_model(resom_model(iterations=rounds), 'resom') for rounds in (1, 2))
    # the lateral adds (2 x 11 nonzero entries of 17 bits) and the divisions (10 units x 8 stages x 26 bits)
    assert two.cost.adder_bits - one.cost.adder_bits == 2 * 11 * 17 + 10 * 8 * 26
    assert two.cost.multiplier_count - one.cost.multiplier_count == 2 + 10  # the 0.75 products, act * lateral
    assert '10 divisions of 8 compare-subtract stages' in one.notes[0]
    assert two.depth.low > one.depth.low and two.depth.high > one.depth.high


def test_resom_source_bmu_selects_instead_of_multiplying() -> None:
    model = rule_model(resom_model(source='bmu', output='winners'), 'resom')
    assert (4, 8, 8, 0) in shapes(model.cost.multipliers)  # act * lateral: lateral_accum is H's ufixed<8,1>
    assert not [m for m in model.cost.multipliers if m.digits is not None]  # no constant products by H


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_resom_every_output_is_modelled(io_type: str) -> None:
    for output in ('label', 'index', 'winners', 'activities'):
        estimate = resom_model(io_type, output=output, combine='sum').estimate()
        (resom,) = [layer for layer in estimate.layers if layer.kind == 'ReSOM']
        assert resom.modelled and resom.coarse and resom.resources['LUT'].low > 0, resom.notes


def som_model(distance: str, output: str, io_type: str = 'io_parallel', reuse_factor: int = 1, **options):
    return graph_model(*som_graph(CODEBOOK_X, (2, 2), distance, output, **options), io_type, reuse_factor)


def test_som_activities_take_bit_serial_roots_of_squared_distances() -> None:
    model = som_model('squared_euclidean', 'activities')
    layer = model.graph.layers['som']
    roots = activity_table(layer.attributes, layer.types['accum']).root_type
    assert roots is not None
    cost = rule_model(model, 'som').cost
    steps = [(4 + 1, bits, bits, 0) for bits in range(1, roots.width + 1)]  # 4 units + the BMU's
    assert shapes(cost.multipliers) == sorted([(4 * 2, 9, 9, 0), *steps])
    assert [(memory.words, memory.reads) for memory in cost.memories] == [(1024, 4)]
    assert rule_model(som_model('manhattan', 'activities'), 'som').cost.multipliers == []


def test_som_quantized_and_hexagonal_coordinates_read_the_best_unit() -> None:
    quantized = rule_model(som_model('manhattan', 'quantized'), 'som').cost
    index = rule_model(som_model('manhattan', 'index'), 'som').cost
    assert quantized.logic_bits - index.logic_bits == 2 * 8 * 1  # 2 values of 8 bits, a 4:1 multiplexer each
    (table,) = rule_model(som_model('manhattan', 'coordinates', topology='hexagonal'), 'som').cost.memories
    assert (table.words, table.reads) == (2 * 4, 2)


@pytest.mark.parametrize('kind', ['ReSOM', 'SOM'])
def test_a_higher_reuse_factor_keeps_resources_and_adds_latency(kind: str) -> None:
    """No ALLOCATION in these kernels: the reuse factor is the pipeline II, every operator stays."""
    if kind == 'ReSOM':
        rows = [row(resom_model(reuse_factor=rf), 'resom') for rf in (1, 2, 4, 8)]
    else:
        rows = [row(som_model('squared_euclidean', 'activities', reuse_factor=rf), 'som') for rf in (1, 2, 4, 8)]
    for fewer, more in zip(rows, rows[1:], strict=False):
        for column in ('DSP', 'LUT', 'BRAM_18K'):
            assert more.resources[column].high <= fewer.resources[column].high
        assert more.latency.low > fewer.latency.low and more.interval.low > fewer.interval.low


def selection_model(io_type: str = 'io_parallel', renormalize: bool = True, output: str = 'gates') -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (8,))
    builder.output(builder.soft_topk(Origin('softtopk', 'SoftTopK'), x, 3, 0.25, 'magnitude'), Origin('s', 'out'))
    builder.output(builder.router(Origin('router', 'Router'), x, 2, renormalize, output), Origin('r', 'out'))
    return convert(builder, io_type=io_type)


def test_soft_topk_uses_the_lowering_types() -> None:
    model = selection_model()
    layer = model.graph.layers['softtopk']
    types = layer_soft_topk_types(layer, model.graph.input_type(layer))  # type: ignore[arg-type]
    soft = rule_model(model, 'softtopk')
    assert f'{types.threshold.width}-bit thresholds' in soft.notes[0]
    assert soft.cost.memories == [Memory('rom', 9 * 4, types.recip.width, label='reciprocal table')]
    assert (1, types.sum.width, types.recip.width, 0) in shapes(soft.cost.multipliers)  # the polish


def test_router_tables_follow_the_output_and_the_normalisation() -> None:
    indices = rule_model(selection_model(output='indices'), 'router', kinds_selection.router).cost
    assert indices.memories == [] and indices.multipliers == []
    kept = rule_model(selection_model(renormalize=True), 'router').cost
    every = rule_model(selection_model(renormalize=False), 'router').cost
    assert [memory.reads for memory in kept.memories] == [2, 1]  # exp of the 2 chosen, one reciprocal
    assert [memory.reads for memory in every.memories] == [2 + 8, 1]  # and the 8 terms of the sum


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_expert_choice_ranks_columns_or_keeps_queues(io_type: str) -> None:
    builder = GraphBuilder('full')
    tokens = builder.input(Origin('t', 'input'), (6, 4))
    builder.output(builder.expert_choice(Origin('ec', 'ExpertChoiceRouter'), tokens, 2), Origin('e', 'out'))
    model = convert(builder, io_type=io_type)
    notes = rule_model(model, 'ec').notes
    if io_type == 'io_parallel':
        assert notes == ['60 comparators (4 rankings of 6 tokens)']  # 4 experts x 6 * 5 / 2
    else:
        assert '4 insertion queues of 2' in notes[0]
        assert row(model, 'ec').interval.low >= 2 * 6  # reads the whole group before the first output


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_every_seed_kind_is_estimated(io_type: str) -> None:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (8,))
    builder.output(builder.topk(Origin('topk', 'TopK'), x, 3, 'values', False), Origin('k', 'out'))
    builder.output(builder.soft_topk(Origin('softtopk', 'SoftTopK'), x, 3, 0.25, 'mask'), Origin('s', 'out'))
    builder.output(builder.router(Origin('router', 'Router'), x, 2, True, 'gates'), Origin('r', 'out'))
    tokens = builder.input(Origin('t', 'input'), (6, 4))
    builder.output(builder.expert_choice(Origin('ec', 'ExpertChoiceRouter'), tokens, 2), Origin('e', 'out'))
    rows = convert(builder, io_type=io_type).estimate().layers
    rows += resom_model(io_type).estimate().layers
    rows += som_model('squared_euclidean', 'activities', io_type).estimate().layers
    kinds = {layer.kind: layer for layer in rows}
    for kind in ('SOM', 'ReSOM', 'TopK', 'SoftTopK', 'Router', 'ExpertChoiceRouter'):
        layer = kinds[kind]
        assert layer.modelled and 'not modelled' not in ' '.join(layer.notes), (kind, layer.notes)
        assert layer.latency is not None and layer.latency.high >= 1
        assert layer.resources['LUT'].high > 0 and layer.resources['FF'].high > 0


def test_every_ir_kind_has_a_rule_but_the_input_port() -> None:
    assert set(LAYER_KINDS) - set(RULES) == {'Input'}  # docs/estimator.md: a port, not a circuit
    assert set(RULES) <= set(LAYER_KINDS)
    assert kinds_maps.resom is RULES['ReSOM']
