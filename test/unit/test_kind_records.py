"""Every layer kind is complete: its IR record (its block in `hls4ml/model/kinds/`), its lowering
(`@lowering` in `hls4ml/backends/common/`) and its estimator rule (`@estimator_rule` in
`hls4ml/estimate/`). A kind that lacks a part fails here, by name, before any model uses it
(docs/adding-a-layer.md lists the parts)."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Mapping
from pathlib import Path

import pytest

from hls4ml.backends.common.kinds import KIND_LOWERINGS
from hls4ml.backends.common.registry import KindLowering, lowering
from hls4ml.estimate.model import RULES
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.config import LayerSettings
from hls4ml.model.kinds import COMMON_KEYS, FAMILIES, IMPLEMENTATIONS, LAYER_KINDS, Kind, KindRecord, gather_records
from hls4ml.model.kinds.record import RESULT_ONLY

NNET = Path(__file__).resolve().parents[2] / 'hls4ml' / 'templates' / 'nnet'
SETTING_KEYS = {  # LayerSettings field -> the config key that sets it
    'reuse_factor': 'ReuseFactor',
    'strategy': 'Strategy',
    'parallelization_factor': 'ParallelizationFactor',
    'table_size': 'TableSize',
    'implementation': 'Implementation',
    'skip': 'Skip',
}
NO_RECORD = 'a KindRecord in its family class (hls4ml/model/kinds/)'
NO_LOWERING = '@lowering(Kind.X, stream=...) on its lowering function (hls4ml/backends/common/)'
NO_RULE = '@estimator_rule(Kind.X) on its estimator rule (hls4ml/estimate/kinds_*.py)'


def _ir_gaps(record: KindRecord | None) -> list[str]:
    if record is None:
        return [NO_RECORD]
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


def _backend_gaps(kind: str, record: KindRecord, lowerings: Mapping[str, KindLowering], rules: Mapping) -> list[str]:
    if record.port:  # a model input: the caller gives its values; nothing is lowered or estimated
        extra = [name for name, table in (('lowering', lowerings), ('estimator rule', rules)) if kind in table]
        return [f'no {name} (a port)' for name in extra]
    gaps = [] if callable(record.reference) else ['a reference kernel']
    found = lowerings.get(kind)
    if found is None:
        gaps.append(NO_LOWERING)
    else:
        gaps += [] if callable(found.lower) else ['a lowering function']
        gaps += [] if (NNET / found.stream_header).is_file() else [f'templates/nnet/{found.stream_header}']
    gaps += [] if callable(rules.get(kind)) else [NO_RULE]
    return gaps


def missing_parts(
    kind: str,
    records: Mapping[str, KindRecord] = LAYER_KINDS,
    lowerings: Mapping[str, KindLowering] = KIND_LOWERINGS,
    rules: Mapping = RULES,
) -> list[str]:
    """What `kind` lacks, in words (empty when it is complete)."""
    record = records.get(kind)
    gaps = _ir_gaps(record)
    return gaps if record is None else gaps + _backend_gaps(kind, record, lowerings, rules)


@pytest.mark.parametrize('kind', list(LAYER_KINDS), ids=str)
def test_every_kind_has_every_part(kind: str) -> None:
    missing = missing_parts(kind)
    assert not missing, f'layer kind {kind} lacks: ' + '; '.join(missing)


def test_no_table_names_a_kind_that_does_not_exist() -> None:
    for table in (KIND_LOWERINGS, RULES, IMPLEMENTATIONS):
        assert set(table) <= set(LAYER_KINDS), sorted(set(table) - set(LAYER_KINDS))
    assert all(lowering.kind == kind for kind, lowering in KIND_LOWERINGS.items())
    assert all(
        getattr(Kind, name) is record
        for family in FAMILIES
        for name, record in vars(family).items()
        if isinstance(record, KindRecord)
    )
    assert len(LAYER_KINDS) == 49 and list(LAYER_KINDS)[:3] == ['Input', 'Dense', 'Dot']


def test_a_missing_part_is_named() -> None:
    """The check above can fail: a kind without its lowering, its rule or its record says which."""
    lowerings = {kind: lowering for kind, lowering in KIND_LOWERINGS.items() if kind != Kind.TOPK}
    assert missing_parts(Kind.TOPK, lowerings=lowerings) == [NO_LOWERING]
    rules = {kind: rule for kind, rule in RULES.items() if kind != Kind.SOM}
    assert missing_parts(Kind.SOM, rules=rules) == [NO_RULE]
    records = {kind: record for kind, record in LAYER_KINDS.items() if kind != Kind.DENSE}
    assert missing_parts(Kind.DENSE, records=records) == [NO_RECORD]
    stripped = Kind.SOFTMAX.with_facts(config_keys=('Precision', 'TableSize', 'Implementation'), choices={})
    assert missing_parts(Kind.SOFTMAX, records={**LAYER_KINDS, Kind.SOFTMAX: stripped}) == [
        "config key 'Trace'",
        "config key 'Skip' for setting 'skip'",
        "the choices of 'implementation' (the default first)",
    ]
    port_lowered = {**KIND_LOWERINGS, Kind.INPUT: KIND_LOWERINGS[Kind.DENSE]}
    assert missing_parts(Kind.INPUT, lowerings=port_lowered) == ['no lowering (a port)']


def test_a_kind_registered_twice_fails_at_import() -> None:
    """Two families defining one name (in `Kind` one would hide the other), or a second lowering or
    estimator rule for a kind, raise instead of silently replacing the first."""

    class Again:
        DENSE_AGAIN = Kind.DENSE

    with pytest.raises(ValueError, match='Dense'):
        gather_records((*FAMILIES, Again))
    with pytest.raises(ValueError, match='two lowerings'):
        lowering(Kind.DENSE, stream='nnet_dense_stream.h')(KIND_LOWERINGS[Kind.SOFTMAX].lower)
    with pytest.raises(ValueError, match='two estimator rules'):
        estimator_rule(Kind.SOM)(RULES[Kind.DENSE])
    assert (
        KIND_LOWERINGS[Kind.DENSE].stream_header == 'nnet_dense_stream.h' and RULES[Kind.SOM] is not RULES[Kind.DENSE]
    )


def test_kinds_print_and_compare_as_their_names() -> None:
    """Kinds stay hls4ml 1.x's class-name strings wherever they show: configs, messages, YAML, pickles."""
    assert Kind.DENSE == 'Dense' and {'Dense': 1}[Kind.DENSE] == 1 and hash(Kind.SOM) == hash('SOM')
    assert f'{Kind.PRELU}' == str(Kind.PRELU) == 'PReLU' and repr([Kind.TOPK]) == "['TopK']"
    assert LAYER_KINDS['Dense'] is Kind.DENSE and Kind.DENSE.precision_rule is LAYER_KINDS['Conv1D'].precision_rule
    unpickled = pickle.loads(pickle.dumps(Kind.DENSE))
    assert type(unpickled) is str and unpickled == 'Dense'
    with pytest.raises(AttributeError, match='immutable'):
        Kind.DENSE.weights = ()  # type: ignore[misc]
    from hls4ml.model.ir import Layer

    layer = Layer('x', Kind.DENSE, [], ['x'])
    assert type(layer.kind) is str and layer.kind == 'Dense'
    assert KindRecord(
        'Probe',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=Kind.CLONE.output_shape,
        precision_rule=Kind.CLONE.precision_rule,
        reference=None,
    ).port
