"""`KindRecord`: one layer kind, its name and every IR-side fact of it, as one value.

A record IS its kind's name: `KindRecord` subclasses `str`, so `Kind.DENSE == 'Dense'`, it hashes,
prints and formats as 'Dense', and `layer.kind == Kind.DENSE` compares names. Besides the name it
holds the kind's typed variables and their defaults, its weights, the config keys it accepts and the
settings they set, the choices of its attributes, its shape rules, its precision rule, its lookup
tables and its reference kernel. Records are immutable and pickle as their plain name.

The records are written in the family modules beside this one (`activations.py`, ...), each kind one
block; `hls4ml/model/kinds/__init__.py` gathers them into `Kind`. How to add one: docs/adding-a-layer.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from hls4ml.model import shape_rules
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.pass_context import PassContext
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import FixedPrecisionType

Shape = tuple[int, ...]
ShapeRule = Callable[[Layer, list[Shape]], Shape]
WeightRule = Callable[[Layer], dict[str, Shape]]
PrecisionRule = Callable[[Graph, Layer, PassContext], None]  # sets the layer's 'auto' types
Reference = Callable[[Layer, list[FixedArray], Graph, str], FixedArray]  # (layer, inputs, graph, family)
TableRule = Callable[[Layer, FixedPrecisionType], dict[str, TableSpec]]  # (layer, input type) -> tables

COMMON_KEYS = ('Precision', 'Trace')  # every kind accepts these hls4ml 1.x per-layer keys
TABLE_KEYS = ('TableSize', 'ReuseFactor')
PRODUCT_KEYS = (*COMMON_KEYS, 'ReuseFactor', 'Strategy')
PRODUCT_SETTINGS = ('reuse_factor', 'strategy')
RESULT_ONLY = {'result': 'auto'}


EXACT_COST = 'values may round or wrap where the exact type would not: the outputs can differ from the exact ones'


def exact_costs(exact_types: tuple[str, ...] | Mapping[str, str]) -> dict[str, str]:
    """Each exact type with what overriding it costs (a plain tuple: the generic `EXACT_COST`)."""
    if isinstance(exact_types, Mapping):
        return dict(exact_types)
    return dict.fromkeys(exact_types, EXACT_COST)


class KindRecord(str):
    """A layer kind: its name (hls4ml 1.x's IR class name) and its IR-side facts."""

    type_defaults: Mapping[str, str]  # typed variable -> default precision ('auto': set by the precision rule)
    weights: tuple[str, ...]
    config_keys: tuple[str, ...]  # the hls4ml 1.x per-layer keys it accepts
    output_shape: ShapeRule
    precision_rule: PrecisionRule  # sets its 'auto' types (`precision_rules.keep_config`: none to set)
    reference: Reference | None  # its numpy reference kernel; None for a port (the caller gives its values)
    settings: tuple[str, ...]  # `config.LayerSettings` fields copied into its attributes
    weight_shapes: WeightRule
    choices: Mapping[str, tuple[str, ...]]  # attribute -> its values, the default first
    ignored_precisions: tuple[str, ...]  # hls4ml 1.x precision keys accepted for compatibility, unused here
    tables: TableRule | None  # the lookup tables its kernel reads, chosen from its types
    # internal types the kernel is only correct with as the precision rule sets them (a square root's
    # operand, an exact division, a distance): no Model-level precision and no layer default string
    # reaches them, only a LayerName / LayerType setting that names the variable does, with an
    # `ExactTypeOverrideWarning` saying what it costs (variable -> that cost)
    exact_types: Mapping[str, str]

    def __new__(
        cls,
        name: str,
        *,
        types: Mapping[str, str],
        config_keys: tuple[str, ...],
        output_shape: ShapeRule,
        precision_rule: PrecisionRule,
        reference: Reference | None,
        weights: tuple[str, ...] = (),
        settings: tuple[str, ...] = (),
        weight_shapes: WeightRule = shape_rules.no_weights,
        choices: Mapping[str, tuple[str, ...]] | None = None,
        ignored_precisions: tuple[str, ...] = (),
        tables: TableRule | None = None,
        exact_types: tuple[str, ...] | Mapping[str, str] = (),
    ) -> KindRecord:
        record = super().__new__(cls, name)
        unknown = sorted(set(exact_types) - set(types))
        if unknown:
            raise ValueError(f'layer kind {name}: exact_types {unknown} are not among its types')
        facts: dict[str, Any] = {
            'type_defaults': MappingProxyType(dict(types)),
            'weights': weights,
            'config_keys': config_keys,
            'output_shape': output_shape,
            'precision_rule': precision_rule,
            'reference': reference,
            'settings': settings,
            'weight_shapes': weight_shapes,
            'choices': MappingProxyType(dict(choices or {})),
            'ignored_precisions': ignored_precisions,
            'tables': tables,
            'exact_types': MappingProxyType(exact_costs(exact_types)),
        }
        for key, value in facts.items():  # a block's static methods are kept as the plain functions
            object.__setattr__(record, key, value.__func__ if isinstance(value, staticmethod) else value)
        return record

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f'layer kind {self}: a record is immutable (use with_facts())')

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f'layer kind {self}: a record is immutable')

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str(self),)  # pickles (and deep-copies) as its plain name, like `Layer.kind`

    @property
    def name(self) -> str:
        return str(self)

    @property
    def port(self) -> bool:
        """A model input: nothing is computed, lowered or estimated for it."""
        return self.reference is None

    def with_facts(self, **changes: Any) -> KindRecord:
        """A copy with some facts changed (`types=` for the typed variables), e.g. for tests."""
        facts = {key: value for key, value in vars(self).items() if key != 'type_defaults'}
        facts['types'] = self.type_defaults
        return KindRecord(str(self), **{**facts, **changes})


# ---- what the blocks of the family modules share --------------------------------------------------


def element_wise(name: str, types: dict[str, str], **facts: Any) -> KindRecord:
    """A one-input kind of the input's shape that accepts ReuseFactor (activations, batch normalization)."""
    keys = facts.pop('config_keys', (*COMMON_KEYS, 'ReuseFactor'))
    return KindRecord(name, types=types, config_keys=keys, output_shape=shape_rules.same_shape, **facts)


def weights_of(layer: Layer, name: str, var: str, family: str) -> FixedArray:
    """Weights `name` flattened and quantized into the layer's type `var`."""
    return quantize(layer.weights[name].reshape(-1), layer.types[var], family)


def fixed_input_type(graph: Graph, layer: Layer) -> FixedPrecisionType:
    """The type of the layer's first input, which a table-reading kernel needs to be fixed-point."""
    precision = graph.input_type(layer)
    assert isinstance(precision, FixedPrecisionType), f'{layer.describe()}: input type {precision}'
    return precision
