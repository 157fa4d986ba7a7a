"""The search space: which settings vary, and how one point becomes an hls4ml configuration.

A point is a flat, ordered mapping of dimension name -> value, so it is also one row of the results
table. Model-wide dimensions are named `io_type`, `strategy`, `reuse_factor` and `precision`;
per-layer ones `<dimension>:<layer>` (`precision:fc1`, `reuse_factor:fc2`). A precision value is an
hls4ml type string ('fixed<10,4>') or a (width, integer bits) pair, which is normalised to the string.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from hls4ml.model.types import parse_precision

Point = dict[str, Any]
MODEL_DIMENSIONS = ('io_type', 'strategy', 'reuse_factor', 'precision')
IO_TYPES = ('io_parallel', 'io_stream')
STRATEGIES = ('Latency', 'Resource')
# what a layer's precision sets when the space names none: the values it computes and stores, not its
# accumulator (which 'auto' sizes from the weights and the input range, overflow-free)
DEFAULT_VARIABLES = ('weight', 'bias', 'result')


def precision_text(value: Any, where: str) -> str:
    """'fixed<W,I>' from a (width, integer bits) pair, or a type string checked by hls4ml's parser."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        value = f'fixed<{value[0]},{value[1]}>'
    if not isinstance(value, str):
        raise ValueError(f'{where}: a precision is a type string or a (width, integer bits) pair, got {value!r}')
    parse_precision(value, where)  # a bad type is refused here, naming where it came from
    return value


@dataclass
class Space:
    """The settings explored. Each argument is a list of values (one setting for the whole model) or a
    dict of layer name -> list of values (one setting per layer); None keeps the base configuration.

    `precision` values are type strings or (width, integer bits) pairs; a layer's precision sets its
    `variables` (by default weight, bias and result: the 'auto' accumulator follows them). The
    points start from the hls_config given to `explore` (by default fixed<16,6>, reuse factor 1)."""

    precision: Sequence[Any] | Mapping[str, Sequence[Any]] | None = None
    reuse_factor: Sequence[int] | Mapping[str, Sequence[int]] | None = None
    strategy: Sequence[str] | Mapping[str, Sequence[str]] | None = None
    io_type: Sequence[str] | None = None
    variables: tuple[str, ...] = DEFAULT_VARIABLES
    dimensions: dict[str, list[Any]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._add('io_type', self.io_type, per_layer=False)
        self._add('strategy', self.strategy)
        self._add('reuse_factor', self.reuse_factor)
        self._add('precision', self.precision)
        if not self.dimensions:
            raise ValueError('the space is empty: give at least one of precision, reuse_factor, strategy, io_type')

    def _add(self, name: str, values: Any, per_layer: bool = True) -> None:
        if values is None:
            return
        if isinstance(values, Mapping):
            if not per_layer:
                raise ValueError(f'space {name}: one value list for the whole model is expected, got a dict')
            for layer, layer_values in values.items():
                self.dimensions[f'{name}:{layer}'] = self._checked(f'{name}:{layer}', layer_values)
        else:
            self.dimensions[name] = self._checked(name, values)

    def _checked(self, name: str, values: Any) -> list[Any]:
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ValueError(f'space {name}: a list of values is expected, got {values!r}')
        values = list(values)
        if not values:
            raise ValueError(f'space {name}: the list of values is empty')
        return [_checked_value(name, value) for value in values]

    @property
    def layers(self) -> list[str]:
        """The layers named by per-layer dimensions, in the order they were given."""
        names = [name.split(':', 1)[1] for name in self.dimensions if ':' in name]
        return list(dict.fromkeys(names))

    def size(self) -> int:
        count = 1
        for values in self.dimensions.values():
            count *= len(values)
        return count

    def grid(self) -> Iterator[Point]:
        """Every combination, the last dimension varying fastest."""
        names = list(self.dimensions)
        for values in product(*self.dimensions.values()):
            yield dict(zip(names, values, strict=True))

    def first(self) -> Point:
        """The point of every dimension's first value (the widest, when the lists go from wide to narrow)."""
        return {name: values[0] for name, values in self.dimensions.items()}


def _checked_value(name: str, value: Any) -> Any:
    dimension = name.split(':', 1)[0]
    where = f'space {name}'
    if dimension == 'precision':
        return precision_text(value, where)
    if dimension == 'reuse_factor':
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f'{where}: a reuse factor is a positive integer, got {value!r}')
        return value
    choices = IO_TYPES if dimension == 'io_type' else STRATEGIES
    matched = [choice for choice in choices if isinstance(value, str) and choice.lower() == value.lower()]
    if not matched:
        raise ValueError(f'{where}: {value!r} is not one of {", ".join(choices)}')
    return matched[0]


def hls_config_for(point: Point, base: dict[str, Any] | None, variables: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """The hls_config dictionary of `point` over `base` (copied, never changed). `variables` maps each
    per-layer precision's layer to the typed variables it sets (those its kind has)."""
    config = copy.deepcopy(base) if base else {}
    model = config.setdefault('Model', {})
    model.setdefault('Precision', 'fixed<16,6>')
    model.setdefault('ReuseFactor', 1)
    keys = {'strategy': 'Strategy', 'reuse_factor': 'ReuseFactor', 'precision': 'Precision'}
    for name, value in point.items():
        dimension, _, layer = name.partition(':')
        if dimension == 'io_type':
            continue
        if dimension == 'precision' and not layer and isinstance(model['Precision'], dict):
            model['Precision'] = {**model['Precision'], 'default': value}  # keeps 'maximum' and the rest
            continue
        if not layer:
            model[keys[dimension]] = value
            continue
        entry = config.setdefault('LayerName', {}).setdefault(layer, {})
        if dimension == 'precision':
            precision = entry.get('Precision')
            precision = dict(precision) if isinstance(precision, dict) else {}
            precision.update(dict.fromkeys(variables[layer], value))
            entry['Precision'] = precision
        else:
            entry[keys[dimension]] = value
    return config


def point_digest(point: Point) -> str:
    """A stable content hash of a point (dimension order does not matter)."""
    return hashlib.sha256(json.dumps(point, sort_keys=True).encode()).hexdigest()[:24]
