"""Every layer kind is complete: its IR record (`hls4ml/model/layers.py`), its backend record
(`hls4ml/backends/common/kinds.py`) and its estimator rule (`hls4ml/estimate/model.py`). A kind that
lacks a part fails here, by name, before any model uses it (docs/adding-a-layer.md lists the parts)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

from hls4ml.backends.common.kinds import KIND_LOWERINGS, KindLowering
from hls4ml.estimate.model import RULES
from hls4ml.model.config import LayerSettings
from hls4ml.model.kinds import Kind
from hls4ml.model.layers import COMMON_KEYS, IMPLEMENTATIONS, LAYER_KINDS, KindRecord

NNET = Path(__file__).resolve().parents[2] / 'hls4ml' / 'templates' / 'nnet'
SETTING_KEYS = {  # LayerSettings field -> the config key that sets it
    'reuse_factor': 'ReuseFactor',
    'strategy': 'Strategy',
    'parallelization_factor': 'ParallelizationFactor',
    'table_size': 'TableSize',
    'implementation': 'Implementation',
    'skip': 'Skip',
}


def _ir_gaps(record: KindRecord | None) -> list[str]:
    if record is None:
        return ['a KindRecord in hls4ml/model/layers.py']
    gaps = [] if 'result' in record.type_defaults else ["a 'result' typed variable"]
    gaps += [f'config key {key!r}' for key in COMMON_KEYS if key not in record.config_keys]
    gaps += [
        f'callable {name}'
        for name in ('output_shape', 'weight_shapes', 'precision_rule')
        if not callable(getattr(record, name))
    ]
    settings = {field.name for field in dataclasses.fields(LayerSettings)}
    gaps += [f'a LayerSettings field for setting {name!r}' for name in record.settings if name not in settings]
    gaps += [
        f'config key {SETTING_KEYS[name]!r} for setting {name!r}'
        for name in record.settings
        if name in SETTING_KEYS and SETTING_KEYS[name] not in record.config_keys
    ]
    if 'Implementation' in record.config_keys and 'implementation' not in record.choices:
        gaps.append("the choices of 'implementation' (the default first)")
    return gaps


def _backend_gaps(kind: Kind, record: KindRecord, lowerings: Mapping[str, KindLowering], rules: Mapping) -> list[str]:
    if record.port:  # a model input: the caller gives its values; nothing is lowered or estimated
        extra = [name for name, table in (('KindLowering', lowerings), ('estimator rule', rules)) if kind in table]
        return [f'no {name} (a port)' for name in extra]
    gaps = [] if callable(record.reference) else ['a reference kernel (interpreter_*.py)']
    lowering = lowerings.get(kind)
    if lowering is None:
        gaps.append('a KindLowering in hls4ml/backends/common/kinds.py')
    else:
        gaps += [] if callable(lowering.lower) else ['a lowering function']
        gaps += [] if (NNET / lowering.stream_header).is_file() else [f'templates/nnet/{lowering.stream_header}']
    gaps += [] if callable(rules.get(kind)) else ['an estimator rule in hls4ml/estimate/model.py RULES']
    return gaps


def missing_parts(
    kind: Kind,
    records: Mapping[str, KindRecord] = LAYER_KINDS,
    lowerings: Mapping[str, KindLowering] = KIND_LOWERINGS,
    rules: Mapping = RULES,
) -> list[str]:
    """What `kind` lacks, in words (empty when it is complete)."""
    record = records.get(kind)
    gaps = _ir_gaps(record)
    return gaps if record is None else gaps + _backend_gaps(kind, record, lowerings, rules)


@pytest.mark.parametrize('kind', list(Kind), ids=str)
def test_every_kind_has_every_part(kind: Kind) -> None:
    missing = missing_parts(kind)
    assert not missing, f'layer kind {kind} lacks: ' + '; '.join(missing)


def test_no_table_names_a_kind_that_does_not_exist() -> None:
    for table in (LAYER_KINDS, KIND_LOWERINGS, RULES, IMPLEMENTATIONS):
        assert set(table) <= set(Kind), sorted(set(table) - set(Kind))
    assert all(record.kind == kind for kind, record in LAYER_KINDS.items())
    assert all(lowering.kind == kind for kind, lowering in KIND_LOWERINGS.items())


def test_a_missing_part_is_named() -> None:
    """The check above can fail: a kind without its lowering, its rule or its record says which."""
    lowerings = {kind: lowering for kind, lowering in KIND_LOWERINGS.items() if kind != Kind.TOPK}
    assert missing_parts(Kind.TOPK, lowerings=lowerings) == ['a KindLowering in hls4ml/backends/common/kinds.py']
    rules = {kind: rule for kind, rule in RULES.items() if kind != Kind.SOM}
    assert missing_parts(Kind.SOM, rules=rules) == ['an estimator rule in hls4ml/estimate/model.py RULES']
    records = {kind: record for kind, record in LAYER_KINDS.items() if kind != Kind.DENSE}
    assert missing_parts(Kind.DENSE, records=records) == ['a KindRecord in hls4ml/model/layers.py']
    broken = dict(LAYER_KINDS)
    stripped = dataclasses.replace(LAYER_KINDS[Kind.SOFTMAX], config_keys=('Precision', 'TableSize', 'Implementation'))
    broken[Kind.SOFTMAX] = dataclasses.replace(stripped, choices={})
    assert missing_parts(Kind.SOFTMAX, records=broken) == [
        "config key 'Trace'",
        "config key 'Skip' for setting 'skip'",
        "the choices of 'implementation' (the default first)",
    ]
    port_lowered = {**KIND_LOWERINGS, Kind.INPUT: KIND_LOWERINGS[Kind.DENSE]}
    assert missing_parts(Kind.INPUT, lowerings=port_lowered) == ['no KindLowering (a port)']


def test_kinds_print_and_compare_as_their_names() -> None:
    """Kinds stay hls4ml 1.x's class-name strings wherever they show: configs, messages, YAML."""
    assert Kind.DENSE == 'Dense' and {'Dense': 1}[Kind.DENSE] == 1 and hash(Kind.SOM) == hash('SOM')
    assert f'{Kind.PRELU}' == str(Kind.PRELU) == 'PReLU' and repr([Kind.TOPK]) == "['TopK']"
    from hls4ml.model.ir import Layer

    layer = Layer('x', Kind.DENSE, [], ['x'])
    assert type(layer.kind) is str and layer.kind == 'Dense'
