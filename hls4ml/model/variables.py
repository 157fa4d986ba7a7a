"""hls4ml 1.x's view of a layer's values: named types, tensor and weight variables, and an attribute dict that
also answers the keys 1.x layers carry (`name`, `class_name`, `<var>_t`, the weight variables).

Users' scripts and hls4ml's own tests read a converted model through these (`layer.get_output_variable().shape`,
`layer.get_attr('result_t').precision`, `[w.data for w in layer.get_weights()]`). They are read-only views built
on demand from the IR (`model/ir.py`), which keeps its own plain fields; nothing here is used by the compiler.

Names differ from hls4ml 1.x where 1.x takes them from its C++: a tensor variable is named after its IR tensor
(1.x: `layer2_out`), a type `<layer>_<var>_t`, and a weight variable after its weight (`weight`, `bias`; 1.x:
`w2`, `b2`). The generated C++ names are the backend's (index-based, docs/design.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.types import NamedType


@dataclass(frozen=True)
class TensorVariable:
    """A tensor between layers as hls4ml 1.x shows it: `name`, `shape` (a list, no batch axis), `type`."""

    name: str
    shape: list[int]
    type: NamedType

    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    @property
    def dim_names(self) -> list[str]:
        return [f'N_SIZE_{index}_{self.name}' for index in range(len(self.shape))]


@dataclass(frozen=True)
class WeightVariable:
    """A weight as hls4ml 1.x shows it: `name`, `data` (the framework's float values), `type`."""

    name: str
    data: np.ndarray
    type: NamedType

    @property
    def shape(self) -> list[int]:
        return list(self.data.shape)

    def size(self) -> int:
        return int(self.data.size)

    @property
    def nonzeros(self) -> int:
        return int(np.count_nonzero(self.data))


class Attributes(dict):
    """A layer's attributes (a plain dict to the compiler) that also answers hls4ml 1.x's derived keys on lookup:
    `name`, `class_name`, `<var>_t` (a `NamedType`), a weight's name (a `WeightVariable`) and `<weight>_data`.

    Derived keys answer `[]` (and `Layer.get_attr`); `get` answers only the 1.x keys no kind stores
    (`ONE_X_KEYS`: `class_name`, and `input_shape`, `n_filt`, `n_in`, `n_out` where the kind lacks them, which no
    compiler code asks for). `in`, iterating and copies see the attributes the IR holds, so no check the
    compiler makes (`attributes.get('alpha')` of a PReLU, whose weight is `alpha`) and nothing it prints or
    hashes changes.
    """

    def __init__(self, values: dict[str, Any], derive: Callable[[str], Any]) -> None:
        super().__init__(values)
        self._derive = derive

    def __missing__(self, key: str) -> Any:
        return self._derive(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self or key not in ONE_X_KEYS:
            return super().get(key, default)
        try:
            return self._derive(key)
        except KeyError:
            return default

    def __reduce__(self) -> Any:  # pickles and copies as the plain dict it stores
        return dict, (dict(self),)


# hls4ml 1.x names a few kinds after the framework layer they came from; the other kinds' names are 1.x's own
_ONE_X_PARAMETRIZED = {'elu': 'ELU', 'leaky_relu': 'LeakyReLU', 'thresholded_relu': 'ThresholdedReLU'}
_POOLING_KINDS = ('Pooling1D', 'Pooling2D', 'GlobalPooling1D', 'GlobalPooling2D')
ONE_X_KEYS = ('class_name', 'input_shape', 'n_filt', 'n_in', 'n_out')  # keys `Attributes.get` also answers


def one_x_class_name(kind: str, attributes: dict[str, Any]) -> str:
    """The `class_name` an hls4ml 1.x layer of this kind carries: `InputLayer`, `ELU`, `LeakyReLU`,
    `MaxPooling2D`, `GlobalAveragePooling1D`, ...; the kind's name where 1.x uses the same one."""
    if kind == 'Input':
        return 'InputLayer'
    if kind == 'ParametrizedActivation':
        return _ONE_X_PARAMETRIZED.get(attributes.get('activation', ''), 'Activation')
    if kind in _POOLING_KINDS:
        operation = 'Max' if attributes.get('pool_op') == 'max' else 'Average'
        prefix = 'Global' if kind.startswith('Global') else ''
        return f'{prefix}{operation}Pooling{kind[-2:]}'
    return kind


def one_x_attribute(kind: str, attributes: dict[str, Any], key: str) -> Any:
    """The hls4ml 1.x keys the IR does not store: `class_name`, an input layer's `input_shape` (a list), a
    pooling layer's `n_filt` (channels) and a 1-D pooling layer's `n_in` and `n_out` (input and output lengths).
    KeyError for any other key."""
    if key == 'class_name':
        return one_x_class_name(kind, attributes)
    if key == 'input_shape' and kind == 'Input':
        return list(attributes['shape'])
    if key == 'n_filt' and kind in _POOLING_KINDS:
        return attributes['n_chan']
    if key == 'n_in' and kind in ('Pooling1D', 'GlobalPooling1D'):
        return attributes['in_width']
    if key == 'n_out' and kind in ('Pooling1D', 'GlobalPooling1D'):
        return attributes.get('out_width', 1)  # a global pooling has one output position
    raise KeyError(key)
