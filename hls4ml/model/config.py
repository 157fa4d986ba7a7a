"""The hls4ml `HLSConfig` dictionary: validation and per-layer resolution (LayerName > LayerType > Model).

    {'Model': {'Precision': 'fixed<16,6>' | {'default': ..., 'maximum': ..., '<var>': ...},
               'ReuseFactor': 1, 'Strategy': 'Latency', ...},
     'LayerType': {'Dense': {...}},        # keyed by IR kind (or the framework's class name)
     'LayerName': {'fc1': {...}}}          # keyed by layer name

Every unknown key or bad value raises a ValueError naming the key and where it is. Precision strings
are parsed once, here; `'auto'` becomes `UnspecifiedPrecisionType` for the inference pass.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from hls4ml.model.kinds import DISTRIBUTED_KINDS, IMPLEMENTATIONS, LAYER_KINDS, KindRecord
from hls4ml.model.pass_context import DEFAULT_MAXIMUM_PRECISION
from hls4ml.model.types import FixedPrecisionType, PrecisionType, UnspecifiedPrecisionType, parse_precision

STRATEGIES = ('latency', 'resource')
# Dense and the convolutions only (DISTRIBUTED_KINDS), fully unrolled: docs/distributed-arithmetic.md
DISTRIBUTED = 'distributed_arithmetic'
MODEL_KEYS = {
    'Precision',
    'ReuseFactor',
    'Strategy',
    'BramFactor',
    'TraceOutput',
    'PipelineStyle',
    'PipelineInterval',
    'BitExact',
    'ChannelsLastConversion',  # PyTorch / ONNX frontends: 'full', 'internal' or 'off'
    'TransposeOutputs',
}
TOP_KEYS = {'Model', 'LayerType', 'LayerName', 'InputShape', 'PytorchModel', 'OnnxModel', 'Strategy'}
# hls4ml 1.x takes these on every layer; a kind without the setting ignores them (as 1.x does)
UNIVERSAL_LAYER_KEYS = {'ReuseFactor', 'Strategy'}
# strategies spelled as hls4ml 1.x spells them that this project implements as another one (same C-simulation
# results; docs/compatibility.md says how the schedule differs)
STRATEGY_ALIASES = {'resourceunrolled': 'resource', 'resource_unrolled': 'resource'}
SECTIONS = ('Model', 'LayerType', 'LayerName')
PIPELINE_STYLES = ('auto', 'pipeline', 'dataflow')
EXACT = 'exact'  # the default of a kind's `exact_types` here: no default precision reaches them
CHANNELS_LAST_MODES = ('full', 'internal', 'off')
# what a Model-level Precision dict may name: the defaults and any layer kind's typed variable
MODEL_PRECISION_KEYS = {'default', 'maximum'} | {
    var for kind in LAYER_KINDS.values() for var in (*kind.type_defaults, *kind.ignored_precisions)
}


class ExactTypeOverrideWarning(UserWarning):
    """A LayerName / LayerType setting replaces a type the layer kind keeps exact (`KindRecord.exact_types`):
    honoured, and named with what it may cost, since the precision rule would have made it exact."""


@dataclass
class LayerSettings:
    """What the config says about one layer, after resolution."""

    precisions: dict[str, PrecisionType] = field(default_factory=dict)
    reuse_factor: int = 1
    strategy: str = 'latency'
    trace: bool = False
    table_size: int = 1024
    implementation: str = 'stable'  # the kind's first IMPLEMENTATIONS entry, set by resolve()
    skip: bool = False
    parallelization_factor: int = 1
    recurrent_reuse_factor: int = 1  # recurrent layers: the reuse factor of the state product
    static: bool = True  # recurrent layers: one shared cell (hls4ml's static) or the steps unrolled
    explicit: set[str] = field(default_factory=set)  # precisions set to a concrete type by LayerName/LayerType


class HLSConfig:
    def __init__(self, hls_config: dict[str, Any] | None) -> None:
        check_sections(hls_config)
        hls_config = dict(hls_config or {})
        _check_keys(hls_config, TOP_KEYS, 'hls_config')
        self.model = dict(hls_config.get('Model') or {})
        _check_keys(self.model, MODEL_KEYS, "hls_config['Model']")
        self.layer_type = dict(hls_config.get('LayerType') or {})
        self.layer_name = dict(hls_config.get('LayerName') or {})
        self.model_precision = self._model_precision()
        self.maximum_is_default = not isinstance(self.model_precision.get('maximum'), FixedPrecisionType)
        self.maximum: FixedPrecisionType = self._maximum()
        self.reuse_factor = _reuse_factor(self.model.get('ReuseFactor', 1), "hls_config['Model']['ReuseFactor']")
        self.strategy = self._model_strategy(hls_config)
        self.trace_output = _flag(self.model.get('TraceOutput', False), "hls_config['Model']['TraceOutput']")
        if _flag(self.model.get('BitExact', False), "hls_config['Model']['BitExact']"):
            raise ValueError("hls_config['Model']['BitExact'] = True is not supported yet (it needs quantized models)")
        _check_model_scalars(self.model)

    # ---- model level ----------------------------------------------------------------------------
    def _model_strategy(self, hls_config: dict[str, Any]) -> str:
        """Model.Strategy; a 'Strategy' at the top of the HLSConfig (which hls4ml 1.x reads nowhere) is taken
        as the model's when Model has none, since that is what its writer meant."""
        if 'Strategy' in self.model:
            return _strategy(self.model['Strategy'], "hls_config['Model']['Strategy']")
        return _strategy(hls_config.get('Strategy', 'Latency'), "hls_config['Strategy']")

    def _model_precision(self) -> dict[str, PrecisionType]:
        precision = self.model.get('Precision', 'fixed<16,6>')
        where = "hls_config['Model']['Precision']"
        if not isinstance(precision, (str, dict)):
            raise ValueError(
                f'{where} must be a precision string such as "fixed<16,6>" or a dict of them, got {precision!r}'
            )
        entries = {'default': precision} if isinstance(precision, str) else dict(precision)
        _check_keys(entries, MODEL_PRECISION_KEYS, where)
        if 'default' not in entries:
            entries['default'] = 'fixed<16,6>'
        parsed = {var: parse_precision(text, f'{where}[{var!r}]') for var, text in entries.items()}
        for var, value in parsed.items():
            if isinstance(value, UnspecifiedPrecisionType) and var in ('default', 'maximum'):
                raise ValueError(f"{where}[{var!r}]: the model-level {var} precision cannot be 'auto'")
        return parsed

    def _maximum(self) -> FixedPrecisionType:
        """The configured cap of 'auto' types, else DEFAULT_MAXIMUM_PRECISION."""
        maximum = self.model_precision.pop('maximum', None)
        if maximum is not None and not isinstance(maximum, FixedPrecisionType):
            raise ValueError(f"hls_config['Model']['Precision']['maximum'] must be a fixed-point type, got {maximum}")
        return DEFAULT_MAXIMUM_PRECISION if maximum is None else maximum

    @property
    def default_precision(self) -> PrecisionType:
        return self.model_precision['default']

    # ---- layer level ----------------------------------------------------------------------------
    def check_names(self, layer_names: set[str], kinds_and_classes: set[str]) -> None:
        """Refuse LayerName / LayerType entries that match no layer (a typo would be silently ignored)."""
        for name in self.layer_name:
            if name not in layer_names:
                raise ValueError(
                    f"hls_config['LayerName'][{name!r}] matches no layer; "
                    f'the layers are: {", ".join(sorted(layer_names))}'
                )
        for name in self.layer_type:
            if name not in kinds_and_classes:
                raise ValueError(
                    f"hls_config['LayerType'][{name!r}] matches no layer kind or class in this model; "
                    f'known: {", ".join(sorted(kinds_and_classes))}'
                )

    def resolve(
        self, name: str, kind_name: str, source_class: str, source_names: tuple[str, ...] = ()
    ) -> LayerSettings:
        """Settings of one layer: LayerName (its name, or its framework name) > LayerType > Model."""
        kind = LAYER_KINDS[kind_name]
        classes = (kind_name, source_class) if source_class else (kind_name,)
        levels = [
            self._entry(self.layer_name, (name, *source_names), 'LayerName', kind),
            self._entry(self.layer_type, classes, 'LayerType', kind),
        ]
        implementations = IMPLEMENTATIONS.get(kind_name, ('stable',))  # kinds without the key: unused
        settings = LayerSettings(
            reuse_factor=self.reuse_factor,
            strategy=self.strategy,
            trace=self.trace_output,
            implementation=implementations[0],
        )
        defaults = {var: EXACT if var in kind.exact_types else default for var, default in kind.type_defaults.items()}
        settings.precisions = {var: self._precision(var, default, levels) for var, default in defaults.items()}
        settings.explicit = {
            var
            for var, default in defaults.items()
            for entry, where in levels
            if not isinstance(
                _entry_precision(var, default, entry, where) or UnspecifiedPrecisionType(), UnspecifiedPrecisionType
            )
        }
        for entry, where in reversed(levels):
            self._apply_scalars(settings, entry, where, kind)
        _check_distributed(name, kind_name, settings)
        _warn_exact_overrides(name, kind, settings.precisions)
        _warn_unreached_exact_types(name, kind, settings.precisions, levels)
        return settings

    def _entry(self, table: dict, keys: tuple[str, ...], level: str, kind: KindRecord) -> tuple[dict[str, Any], str]:
        """The first entry of `table` under one of `keys`, checked, and where it is (for messages)."""
        for key in keys:
            if key in table:
                where = f'hls_config[{level!r}][{key!r}]'
                if not isinstance(table[key], (dict, type(None))):
                    raise ValueError(f'{where} must be a dict of settings, got {table[key]!r}')
                entry = _canonical_keys(dict(table[key] or {}), kind)
                _check_layer_keys(entry, kind, where)
                return entry, where
        return {}, ''

    def _precision(self, var: str, default: str, levels: list[tuple[dict, str]]) -> PrecisionType:
        for entry, where in levels:
            found = _entry_precision(var, default, entry, where)
            if found is not None:
                return found
        if var in self.model_precision and default != EXACT:  # a model-wide setting never reaches an exact type
            return self.model_precision[var]
        if default == EXACT:  # an internal type the kernel needs exact: the precision rule sets it
            return UnspecifiedPrecisionType()
        if default == 'auto':  # not configured anywhere: the model default, as in hls4ml
            return self.default_precision
        return parse_precision(default)  # kinds with a fixed default (tables)

    def _apply_scalars(self, settings: LayerSettings, entry: dict[str, Any], where: str, kind: KindRecord) -> None:
        implementations = IMPLEMENTATIONS.get(kind, ('stable',))
        if 'ReuseFactor' in entry:
            settings.reuse_factor = _reuse_factor(entry['ReuseFactor'], f"{where}['ReuseFactor']")
        if 'Strategy' in entry and 'strategy' in kind.settings:
            settings.strategy = _strategy(entry['Strategy'], f"{where}['Strategy']")
            if settings.strategy == DISTRIBUTED and kind.name not in DISTRIBUTED_KINDS:
                raise ValueError(
                    f"{where}['Strategy']: 'distributed_arithmetic' is implemented for Dense and the convolutions, "
                    f'not for {kind.name}; use Latency or Resource there'
                )
        elif 'Strategy' in entry:  # hls4ml 1.x's tests write 'Stable' under a softmax: checked, then ignored as there
            _choice(
                _text(entry['Strategy'], f"{where}['Strategy']"),
                (*STRATEGIES, *STRATEGY_ALIASES, 'distributed_arithmetic', 'da', *implementations),
                f"{where}['Strategy']",
            )
        if 'Trace' in entry:
            settings.trace = _flag(entry['Trace'], f"{where}['Trace']")
        if 'TableSize' in entry:
            settings.table_size = _table_size(entry['TableSize'], f"{where}['TableSize']")
        if 'ParallelizationFactor' in entry:
            settings.parallelization_factor = _reuse_factor(
                entry['ParallelizationFactor'], f"{where}['ParallelizationFactor']"
            )
        if 'Skip' in entry:
            settings.skip = _flag(entry['Skip'], f"{where}['Skip']")
        if 'RecurrentReuseFactor' in entry:
            settings.recurrent_reuse_factor = _reuse_factor(
                entry['RecurrentReuseFactor'], f"{where}['RecurrentReuseFactor']"
            )
        if 'Static' in entry:
            settings.static = _flag(entry['Static'], f"{where}['Static']")
        if 'Implementation' in entry:
            settings.implementation = _choice(entry['Implementation'], implementations, f"{where}['Implementation']")


def _warn_exact_overrides(name: str, kind: KindRecord, precisions: dict[str, PrecisionType]) -> None:
    """One `ExactTypeOverrideWarning` per exact type that a layer setting names (Model ones never reach them)."""
    for var, cost in kind.exact_types.items():
        precision = precisions.get(var)
        if precision is not None and not isinstance(precision, UnspecifiedPrecisionType):
            warnings.warn(
                f'layer {name!r} ({kind.name}): {var} = {precision} replaces the exact type its precision rule '
                f"sets ('auto'): {cost}",
                ExactTypeOverrideWarning,
                stacklevel=4,
            )


def _warn_unreached_exact_types(
    name: str, kind: KindRecord, precisions: dict[str, PrecisionType], levels: list[tuple[dict, str]]
) -> None:
    """A layer's precision string (hls4ml 1.x's one type for the layer) sets its 'auto' types but not its
    exact ones: said once, naming them, so that the setting is not silently half applied."""
    left = [var for var in kind.exact_types if isinstance(precisions.get(var), UnspecifiedPrecisionType)]
    for entry, where in levels:
        precision = entry.get('Precision')
        if left and isinstance(precision, str):
            warnings.warn(
                f"{where}['Precision'] = {precision!r} does not reach the exact types {', '.join(left)} of layer "
                f'{name!r} ({kind.name}): their precision rule keeps them exact; name one to override it '
                f"({{'Precision': {{{left[0]!r}: ...}}}})",
                ExactTypeOverrideWarning,
                stacklevel=4,
            )
            return


def _entry_precision(var: str, default: str, entry: dict[str, Any], where: str) -> PrecisionType | None:
    """The precision one config entry gives `var`, or None when it says nothing about it."""
    if f'{var}_t' in entry:
        return parse_precision(entry[f'{var}_t'], f'{where}[{var + "_t"!r}]')
    precision = entry.get('Precision')
    if isinstance(precision, dict) and var in precision:
        return parse_precision(precision[var], f"{where}['Precision'][{var!r}]")
    if isinstance(precision, str) and default == 'auto':  # a layer default, as in hls4ml: the
        return parse_precision(precision, f"{where}['Precision']")  # tables keep their own types
    return None


def check_sections(hls_config: Any) -> None:
    """The HLSConfig dictionary and its Model / LayerType / LayerName sections must be dicts (or absent):
    anything else is refused naming the key, before any value is read from them."""
    if hls_config is None:
        return
    if not isinstance(hls_config, dict):
        raise ValueError(f'hls_config must be a dict (Model, LayerType, LayerName), got {hls_config!r}')
    for section in SECTIONS:
        value = hls_config.get(section)
        if value is not None and not isinstance(value, dict):
            raise ValueError(f'hls_config[{section!r}] must be a dict, got {value!r}')


def _check_model_scalars(model: dict[str, Any]) -> None:
    """The Model keys read by later stages (lowering, frontends), checked here so conversion fails early."""
    where = "hls_config['Model']"
    if 'BramFactor' in model:
        _reuse_factor(model['BramFactor'], f"{where}['BramFactor']")
    if 'PipelineInterval' in model:
        _reuse_factor(model['PipelineInterval'], f"{where}['PipelineInterval']")
    for key, choices in (('PipelineStyle', PIPELINE_STYLES), ('ChannelsLastConversion', CHANNELS_LAST_MODES)):
        if key in model:
            _choice(_text(model[key], f'{where}[{key!r}]'), choices, f'{where}[{key!r}]')
    if 'TransposeOutputs' in model:
        _flag(model['TransposeOutputs'], f"{where}['TransposeOutputs']")


def _flag(value: Any, where: str) -> bool:
    """A yes/no setting: True or False (YAML's true/false); 1 and 0 are accepted as hls4ml 1.x did."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise ValueError(f'{where} must be True or False, got {value!r}')


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f'{where} must be a string, got {value!r}')
    return value


def _check_keys(entry: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted((key for key in entry if key not in allowed), key=repr)
    if unknown:
        raise ValueError(f'{where}: unknown key {unknown[0]!r}; allowed keys are {", ".join(sorted(allowed))}')


def _allowed_layer_keys(kind: KindRecord) -> set[str]:
    typed = (*kind.type_defaults, *kind.ignored_precisions)
    return set(kind.config_keys) | UNIVERSAL_LAYER_KEYS | {f'{var}_t' for var in typed}


def _canonical_keys(entry: dict[str, Any], kind: KindRecord) -> dict[str, Any]:
    """hls4ml 1.x turns every per-layer key into a snake_case attribute, so 'table_size' and 'TableSize' both
    work there and, given both, the one written last wins: the same here (a snake_case spelling of a known key
    becomes that key)."""
    allowed = _allowed_layer_keys(kind)
    canonical: dict[str, Any] = {}
    for key, value in entry.items():
        pascal = ''.join(part.capitalize() for part in key.split('_')) if isinstance(key, str) else key
        canonical[pascal if key not in allowed and pascal in allowed else key] = value
    return canonical


def _check_layer_keys(entry: dict[str, Any], kind: KindRecord, where: str) -> None:
    allowed = _allowed_layer_keys(kind)
    _check_keys(entry, allowed, f'{where} ({kind.name})')
    precision = entry.get('Precision')
    if isinstance(precision, dict):
        ignored = set(kind.ignored_precisions)
        _check_keys(precision, set(kind.type_defaults) | ignored, f"{where}['Precision'] ({kind.name})")
    elif precision is not None and not isinstance(precision, str):
        raise ValueError(f"{where}['Precision'] must be a string or a dict, got {precision!r}")


def _reuse_factor(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f'{where} must be a positive integer, got {value!r}')
    return value


def _check_distributed(name: str, kind_name: str, settings: LayerSettings) -> None:
    """A Model-level 'distributed_arithmetic' reaches Dense and the convolutions; other kinds run Latency
    (the same results). Distributed arithmetic is fully unrolled: a ReuseFactor above 1 is refused."""
    if settings.strategy != DISTRIBUTED:
        return
    if kind_name not in DISTRIBUTED_KINDS:
        settings.strategy = 'latency'
    elif settings.reuse_factor != 1:
        raise ValueError(
            f"layer {name!r} ({kind_name}): Strategy 'distributed_arithmetic' is fully unrolled (one adder graph, "
            f'as in hls4ml 1.x), so its ReuseFactor must be 1, got {settings.reuse_factor}; use Latency or Resource '
            'to share multipliers'
        )


def _strategy(value: Any, where: str) -> str:
    lowered = _text(value, where).lower()
    if lowered in ('distributed_arithmetic', 'da'):
        return DISTRIBUTED
    if lowered in STRATEGY_ALIASES:
        warnings.warn(
            f'{where}: strategy {value!r} is implemented as {STRATEGY_ALIASES[lowered]!r}: the same C-simulation '
            'results as hls4ml 1.x, with the Resource schedule (docs/compatibility.md)',
            UserWarning,
            stacklevel=2,
        )
        return STRATEGY_ALIASES[lowered]
    return _choice(lowered, STRATEGIES, where)


def _table_size(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 2 or value & (value - 1):
        raise ValueError(f'{where} must be a power of two >= 2, got {value!r}')
    return value


def _choice(value: Any, choices: tuple[str, ...], where: str) -> str:
    lowered = str(value).lower()
    if lowered not in choices:
        raise ValueError(f'{where}: {value!r} is not one of {", ".join(choices)}')
    return lowered
