"""The last step of converting a model with HGQ2 layers (`hls4ml.converters.keras.hgq`), once the whole
graph is known:

1. every precision whose default is 'auto' is preset 'auto' (inferred exactly), so a model-level default
   type (`granularity='model'`) does not round what HGQ2 computes exactly; the config still wins where
   it names a type;
2. relu and linear activations keep their input type (`exact_result`), as the quantizer after them reads
   the exact value;
3. a uniform quantizer right after a layer that rounds its result once (Dense, convolutions, merges,
   relu/linear, a UnaryLUT, the model input) and read by nothing else becomes that layer's result type;
   a UnaryLUT otherwise writes its entries unchanged (result type = table type);
4. a heterogeneous quantizer right after a model input types that input so that quantizing its value
   gives what HGQ2 gives on the float32 input (`hls4ml.model.quantizer.feeding_type`).
"""

from __future__ import annotations

from hls4ml.converters.builder import FOLDABLE
from hls4ml.converters.keras.hgq_classes import EXACT_ACTIVATIONS, HGQ_CLASSES
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.quantizer import element_type, feeding_type, triples_of
from hls4ml.model.types import UnspecifiedPrecisionType


def is_hgq_model(graph: Graph) -> bool:
    return any(
        layer.kind == Kind.FIXED_POINT_QUANTIZER or layer.source_class in HGQ_CLASSES for layer in graph.layers.values()
    )


def finish_hgq(graph: Graph) -> None:
    """Steps 1-4 above, for graphs with HGQ2 layers (others are left alone)."""
    if not is_hgq_model(graph):
        return
    for layer in graph.layers.values():
        _preset_auto(layer)
    for layer in list(graph.layers.values()):
        if layer.kind == Kind.FIXED_POINT_QUANTIZER:
            _place_quantizer(graph, layer)
    for layer in graph.layers.values():
        if layer.kind == Kind.UNARY_LUT and isinstance(layer.types['result'], UnspecifiedPrecisionType):
            layer.types['result'] = layer.types['table']


def _preset_auto(layer: Layer) -> None:
    for var, default in LAYER_KINDS[layer.kind].type_defaults.items():
        if default == 'auto' and var not in layer.types and layer.kind != Kind.INPUT:
            layer.types[var] = UnspecifiedPrecisionType()
    if layer.kind == Kind.ACTIVATION and layer.attributes.get('activation') in EXACT_ACTIVATIONS:
        layer.attributes['exact_result'] = True


def _place_quantizer(graph: Graph, quantizer: Layer) -> None:
    producer = graph.producer(quantizer.inputs[0])
    output = producer.outputs[0]
    alone = len(graph.consumers(output)) == 1 and output not in graph.outputs
    triples = triples_of(quantizer)
    uniform = triples.keep_negative.size == 1 and bool(triples.live[0])
    if producer.kind == Kind.INPUT and alone and not uniform:
        producer.types.setdefault('result', feeding_type(triples))
        return
    if not (uniform and alone and _rounds_once(producer)):
        return
    precision = element_type(
        int(triples.keep_negative[0]),
        int(triples.integer[0]),
        int(triples.fraction[0]),
        triples.rounding,
        triples.overflow,
    )
    if isinstance(producer.types.get('result', UnspecifiedPrecisionType()), UnspecifiedPrecisionType):
        producer.types['result'] = precision
        graph.remove_layer(quantizer)


def _rounds_once(layer: Layer) -> bool:
    """The layer computes its value exactly and writes it once into its result type."""
    if layer.kind == Kind.ACTIVATION:
        return layer.attributes.get('activation') in EXACT_ACTIVATIONS
    return layer.kind in FOLDABLE or layer.kind == Kind.UNARY_LUT  # its entries hold the quantizer's feeding type
