"""The whole project as data for the templates: types, ports, layer implementations, traces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hls4ml.backends.base import Design
from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.kinds import KIND_LOWERINGS
from hls4ml.backends.common.quoting import cmake_argument, tcl_word, tcl_words
from hls4ml.backends.common.records import ConstArray, LayerImpl
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import Kind, is_port
from hls4ml.model.names import project_name_clash
from hls4ml.model.passes.fifo_depths import stream_pack
from hls4ml.model.types import FixedPrecisionType

if TYPE_CHECKING:
    from hls4ml.backends.common.learning import LearnTop

LEARNING_KINDS = (Kind.SOM, Kind.RESOM, Kind.RESOM_MAPS)  # the kinds that may have learning code (learning.py)


@dataclass
class Port:
    """A tensor as the C++ sees it: variable name, type name, flat size, shape, the layer writing it."""

    name: str
    type_name: str
    size: int
    shape: tuple[int, ...]
    layer: str
    element: str = ''  # io_stream: the stream's element type, nnet::array<type_name, pack>
    pack: int = 0  # io_stream: values per element
    depth: int = 0  # io_stream: FIFO depth

    @property
    def elements(self) -> int:
        return self.size // self.pack if self.pack else 0


@dataclass
class Task:
    """A layer with the ports it reads and writes: how a backend that runs each layer as a task of its
    own (oneAPI io_stream) joins the tasks with one channel per tensor."""

    layer: LayerImpl
    inputs: list[Port]
    outputs: list[Port]


@dataclass
class ProjectContext:
    project_name: str
    backend: str
    family: str
    part: str
    clock_period: float
    clock_uncertainty: str | None  # Vitis / Vivado only
    io_type: str
    hyperopt_handshake: bool = False  # oneAPI only: False asks the compiler to optimise for latency
    settings: Mapping[str, Any] = field(default_factory=dict)  # the top-level config (e.g. Catapult's Technology)
    defines: tuple[str, ...] = ()  # the dialect's -D flags (backend.csim_defines), for vendor builds too
    pipeline_style: str = 'pipeline'  # of the top function: 'pipeline' (II below) or 'dataflow'
    pipeline_interval: int = 1
    typedefs: list[tuple[str, str]] = field(default_factory=list)  # (name, C++ type)
    inputs: list[Port] = field(default_factory=list)
    outputs: list[Port] = field(default_factory=list)
    intermediates: list[Port] = field(default_factory=list)
    layers: list[LayerImpl] = field(default_factory=list)
    traces: list[Port] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    learners: list[LearnTop] = field(default_factory=list)  # learning top functions (SOM, ReSOM layers)

    # How the build-script templates print a value: one literal Tcl word / CMake argument, quoted and
    # escaped when it holds anything but letters, digits and _ . + - / : % , (backends/common/quoting.py).
    tcl = staticmethod(tcl_word)
    tcl_list = staticmethod(tcl_words)
    cmake = staticmethod(cmake_argument)

    @property
    def asic_libraries(self) -> list[str]:
        """Catapult tech='asic': the library names (stored space-separated, as hls4ml does)."""
        return str(self.settings.get('ASICLibs') or '').split()

    @property
    def stream_capacities(self) -> list[tuple[str, int]]:
        """io_stream: (element type spelled without typedefs, elements) for each distinct element type of
        the tensors: the most elements of a tensor of that type, what a FIFO holding a whole tensor needs.
        Spelled out because two typedef names may be one type, which may be specialised only once."""
        spellings = dict(self.typedefs)
        capacities: dict[str, int] = {}
        for port in self.inputs + self.outputs + self.intermediates:
            element = f'nnet::array<{spellings[port.type_name]}, {port.pack}>'
            capacities[element] = max(capacities.get(element, 0), port.elements)
        return sorted(capacities.items())

    @property
    def trace_index(self) -> dict[str, int]:
        """Traced layer name -> position of its buffer."""
        return {port.layer: index for index, port in enumerate(self.traces)}

    @property
    def headers(self) -> list[str]:
        """The kernel headers to include: each layer's, and its streaming twin in io_stream."""
        return kernel_headers(self.layers, self.io_type)

    @property
    def arrays(self) -> list[ConstArray]:
        return [array for layer in self.layers for array in layer.arrays]

    @property
    def global_identifiers(self) -> set[str]:
        """Every identifier the templates derive from this model's index-based names at global scope
        (typedefs, config structs and their oneAPI tasks, arrays with their value tables, load flags and
        upper-cased guards, tensors and their oneAPI pipes), for `project_name_clash`."""
        names = {name for name, _ in self.typedefs}
        names |= {impl.struct for impl in self.layers} | {f'{impl.struct}_task' for impl in self.layers}
        names |= {top.struct for top in self.learners}
        for array in self.arrays:
            names |= {array.name, f'{array.name}_values', f'{array.name}_loaded', f'{array.name}_H_'}
        for port in self.inputs + self.outputs + self.intermediates:
            names |= {port.name, f'{port.name}_pipe', f'{port.name}_pipe_id', f'{port.name}_elements'}
        return names


def kernel_headers(layers: list[LayerImpl], io_type: str) -> list[str]:
    """The kernel headers `layers` need: each layer's, and its streaming twin in io_stream."""
    headers = {layer.header for layer in layers}
    if io_type == 'io_stream':
        headers |= {KIND_LOWERINGS[layer.kind].stream_header for layer in layers}
    return sorted(headers)


def lower_project(design: Design) -> ProjectContext:
    """The whole project of a converted model as data for the templates; raises (naming the layer)
    before anything is written when a layer cannot be implemented."""
    graph, config, backend = design.graph, design.config, design.backend
    family = backend.family
    io_stream = config['IOType'] == 'io_stream'
    indices = {name: index for index, name in enumerate(graph.layers, start=1)}
    context = LoweringContext(graph, family, indices, io_stream)
    project = ProjectContext(
        design.project_name,
        backend.name,
        family,
        config.get('Part', ''),
        config['ClockPeriod'],
        config.get('ClockUncertainty'),
        config['IOType'],
        hyperopt_handshake=config.get('HyperoptHandshake', False),
        settings=config,
        defines=backend.csim_defines,
    )
    for layer in graph.layers.values():
        for var, precision in layer.types.items():
            assert isinstance(precision, FixedPrecisionType)
            project.typedefs.append((context.type_name(layer, var), precision.spelling(family)))
        if is_port(layer):
            continue
        if layer.kind not in KIND_LOWERINGS:
            raise ValueError(f'{layer.describe()}: the {backend.name} backend has no implementation of {layer.kind}')
        project.layers.append(KIND_LOWERINGS[layer.kind].lower(layer, context))
    ports = {name: _port(context, name) for name in graph.tensors}
    project.inputs = [ports[name] for name in graph.inputs]
    project.outputs = [ports[name] for name in graph.outputs]
    if set(graph.inputs) & set(graph.outputs):
        raise ValueError('a model output is one of its inputs; there is nothing to compute for it')
    project.intermediates = [port for name, port in ports.items() if name not in graph.inputs + graph.outputs]
    computed = [layer for layer in graph.layers.values() if not is_port(layer)]
    project.tasks = [
        Task(impl, [ports[name] for name in layer.inputs], [ports[name] for name in layer.outputs])
        for impl, layer in zip(project.layers, computed, strict=True)
    ]
    project.traces = _traced(graph, ports)
    if any(layer.kind in LEARNING_KINDS for layer in computed):  # the learning code loads with a map
        from hls4ml.backends.common.learning import learning_tops

        project.learners = learning_tops(project.project_name, context, project.layers)
    project.pipeline_style, project.pipeline_interval = top_schedule(design)
    clash = project_name_clash(project.project_name, project.global_identifiers)
    if clash:
        raise ValueError(clash)
    return project


def top_schedule(design: Design) -> tuple[str, int]:
    """The top-level schedule, as hls4ml chooses it unless Model.PipelineStyle/PipelineInterval say:
    a Resource layer makes it a dataflow of layers, otherwise one pipeline at the largest reuse factor."""
    settings = design.model_settings
    layers = design.graph.layers.values()
    largest = max((layer.attributes.get('reuse_factor', 1) for layer in layers), default=1)
    style = str(settings.get('PipelineStyle', 'auto')).lower()
    if style not in ('auto', 'pipeline', 'dataflow'):
        raise ValueError(f"hls_config['Model']['PipelineStyle'] must be auto, pipeline or dataflow, got {style!r}")
    if style == 'auto':
        streaming = design.io_type == 'io_stream'
        resource = any(layer.attributes.get('strategy') == 'resource' for layer in layers)
        style = 'dataflow' if streaming or resource else 'pipeline'
    interval = settings.get('PipelineInterval', largest)
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
        raise ValueError(f"hls_config['Model']['PipelineInterval'] must be a positive integer, got {interval!r}")
    return style, interval


def _port(context: LoweringContext, tensor_name: str) -> Port:
    tensor = context.graph.tensors[tensor_name]
    producer = context.graph.layers[tensor.producer]
    port = Port(
        context.tensor(tensor_name), context.type_name(producer, 'result'), tensor.size, tensor.shape, producer.name
    )
    if context.io_stream:
        port.element, port.pack, port.depth = (
            context.stream_type(tensor_name),
            stream_pack(tensor.shape),
            tensor.fifo_depth,
        )
    return port


def _traced(graph: Graph, ports: dict[str, Port]) -> list[Port]:
    """Layers marked `Trace: True`; when none is marked, every layer after the inputs (trace() is asked for)."""
    layers = [layer for layer in graph.layers.values() if not is_port(layer) and layer.kind != Kind.CLONE]
    marked = [layer for layer in layers if layer.attributes.get('trace')]
    return [ports[layer.outputs[0]] for layer in (marked or layers)]
