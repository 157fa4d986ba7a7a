"""What every lowering function reads and the helpers they share: `LoweringContext`.

A lowering function `lower(layer, context) -> LayerImpl` (one per kind, named by its `KindLowering` in
`kinds.py`) reads the graph and the type family through the context and builds its `LayerImpl` with
`context.start` (the kernel call and config struct every kernel has) and `context.array` (a weight as
a constant array). Identifiers are index-based (`layer3_out`, `config3`, `w3`, `layer3_result_t`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.passes.fifo_depths import stream_pack
from hls4ml.model.types import FixedPrecisionType


@dataclass
class LoweringContext:
    graph: Graph
    family: str
    index: dict[str, int]  # layer name -> index used in identifiers
    io_stream: bool = False

    def type_name(self, layer: Layer, var: str) -> str:
        return f'layer{self.index[layer.name]}_{var}_t'

    def tensor(self, tensor_name: str) -> str:
        """The C++ variable of a tensor: `layer3_out` (a clone's further outputs: `layer3_out2`, ...)."""
        producer = self.graph.producer(tensor_name)
        position = producer.outputs.index(tensor_name)
        return f'layer{self.index[producer.name]}_out{position + 1 if position else ""}'

    @property
    def io_type(self) -> str:
        return 'nnet::io_stream' if self.io_stream else 'nnet::io_parallel'

    def stream_type(self, tensor_name: str) -> str:
        """The element type of a tensor's stream: all channels of one position."""
        producer = self.graph.producer(tensor_name)
        pack = stream_pack(self.graph.tensors[tensor_name].shape)
        return f'nnet::array<{self.type_name(producer, "result")}, {pack}>'

    def data_type(self, tensor_name: str) -> str:
        """What a kernel's data template argument is: the element type, or the stream element type."""
        if self.io_stream:
            return self.stream_type(tensor_name)
        return self.type_name(self.graph.producer(tensor_name), 'result')

    def input_type_name(self, layer: Layer, position: int = 0) -> str:
        return self.type_name(self.graph.producer(layer.inputs[position]), 'result')

    def start(self, layer: Layer, header: str, base: str, function: str) -> LayerImpl:
        """The common part: struct name, the kernel and its template arguments (each input's type, the
        result type, the config), the data arguments (inputs, then the output), and n_in."""
        index = self.index[layer.name]
        impl = LayerImpl(layer.name, layer.kind, header, f'config{index}', base, function=function)
        impl.template_args = [
            *(self.data_type(name) for name in layer.inputs),
            self.data_type(layer.outputs[0]),
            impl.struct,
        ]
        impl.arguments = [*(self.tensor(name) for name in layer.inputs), self.tensor(layer.outputs[0])]
        impl.statics.append(('unsigned', 'n_in', str(self.graph.tensors[layer.inputs[0]].size)))
        return impl

    def array(self, impl: LayerImpl, layer: Layer, prefix: str, weight: str, var: str) -> str:
        """Add the constant array of `layer.weights[weight]` in type `var` to `impl`; returns its name."""
        precision = layer.types[var]
        assert isinstance(precision, FixedPrecisionType)
        name = f'{prefix}{self.index[layer.name]}'
        array = const_array(
            name,
            self.type_name(layer, var),
            layer.weights[weight],
            precision,
            self.family,
            f"{layer.describe()}, weights '{weight}'",
        )
        impl.arrays.append(array)
        return name
