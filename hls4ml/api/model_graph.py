"""`ModelGraph`: the converted model users hold (hls4ml 1.x API): write, compile, predict, trace, build."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from hls4ml.api.checks import check_build_keywords, check_model
from hls4ml.backends import get_backend
from hls4ml.backends.base import Design
from hls4ml.model.config import HLSConfig
from hls4ml.model.flow import run_flow
from hls4ml.model.ir import Graph, Layer, format_graph
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.passes import PassContext
from hls4ml.model.types import IntegerPrecisionType
from hls4ml.model.variables import TensorVariable
from hls4ml.model.verify import verify
from hls4ml.writer import write_project
from hls4ml.writer.files import project_lock

if TYPE_CHECKING:  # imported where used: a conversion loads none of them
    from hls4ml.csim import Simulation
    from hls4ml.csim.rtl import RTLSimulation
    from hls4ml.estimate import Estimate
    from hls4ml.learning.learners import ModelGraph as LearningModel


class ProjectConfig(dict):
    """The project dictionary (OutputDir, ProjectName, IOType, HLSConfig, ...), which hls4ml 1.x scripts also
    query as `hls_model.config.get_config_value(key)` and `hls_model.config.config[key]`."""

    def get_config_value(self, key: str, default: Any = None) -> Any:
        return self.get(key, default)

    @property
    def config(self) -> ProjectConfig:
        return self


class ModelGraph:
    """A converted model: the IR graph after the conversion flow, plus the project configuration.

    `graph` is the IR graph, which is also hls4ml 1.x's ordered mapping of layer name -> layer."""

    def __init__(self, config: dict[str, Any], graph: Graph, origin: dict[str, str] | None = None) -> None:
        self.config = ProjectConfig(config)
        self.backend = get_backend(config['Backend'])
        self.hls_config = HLSConfig(config.get('HLSConfig'))
        self.graph = graph
        verify(graph, resolved=False)  # NaN weights, bad shapes: refused before any pass runs
        self._apply_config(origin or {})
        self.context = PassContext(
            self.hls_config.default_precision,
            self.hls_config.maximum,
            config['IOType'],
            maximum_is_default=self.hls_config.maximum_is_default,
        )
        self.applied_passes = run_flow(graph, self.context)
        self._check_backend_gaps()
        self.backend.check_design(self.design)  # what the backend refuses beyond its kinds (Verilog: docs/verilog.md)
        check_model(self.design, self.context.warnings)  # a reserved project name; oversize Latency layers (a warning)
        self._simulation: Simulation | RTLSimulation | None = None
        self._compile_lock = threading.RLock()

    def _apply_config(self, origin: dict[str, str]) -> None:
        aliases = {name: (keras_name,) for name, keras_name in origin.items() if keras_name != name}
        known_names = set(self.graph.layers) | {alias for names in aliases.values() for alias in names}
        known_kinds = set(LAYER_KINDS) | {layer.source_class for layer in self.graph.layers.values()}
        self.hls_config.check_names(known_names, known_kinds)
        for layer in self.graph.layers.values():
            settings = self.hls_config.resolve(layer.name, layer.kind, layer.source_class, aliases.get(layer.name, ()))
            preset = layer.types  # set by the frontend (quantizers): kept unless the config names a type
            layer.quantized = layer.quantized or bool(preset)
            layer.types = dict(settings.precisions)
            layer.types.update({var: t for var, t in preset.items() if var not in settings.explicit})
            layer.attributes['trace'] = settings.trace
            for attribute in LAYER_KINDS[layer.kind].settings:
                layer.attributes[attribute] = getattr(settings, attribute)

    def _check_backend_gaps(self) -> None:
        """Layer kinds the backend does not implement (docs/layers.md lists them) and, in the ac family,
        integer results of fixed-point values (docs/backends.md), all in one error."""
        gaps = dict(self.backend.unsupported_kinds)
        layers = self.graph.layers.values()
        refused = [f'{layer.describe()}: {gaps[layer.kind]}' for layer in layers if layer.kind in gaps]
        if self.backend.family == 'ac':
            refused += [problem for layer in layers for problem in self._ac_integer_result(layer)]
        if refused:
            raise ValueError(f'the {self.backend.name} backend cannot implement: ' + '; '.join(refused))

    def _ac_integer_result(self, layer: Layer) -> list[str]:
        """ac_int cannot be assigned an ac_fixed (Algorithmic C asks for to_ac_int()): an integer
        result type needs integer operands; fixed<W,W> holds the same values and floors like ac_int."""
        result = layer.types.get('result')
        if layer.kind == Kind.INPUT or not isinstance(result, IntegerPrecisionType):
            return []
        operands = [self.graph.input_type(layer, index) for index in range(len(layer.inputs))]
        operands += [layer.types[var] for var in ('accum', 'weight', 'bias', 'scale', 'param') if var in layer.types]
        if all(isinstance(operand, IntegerPrecisionType) for operand in operands):
            return []
        return [
            f'{layer.describe()}: the result type {result} is an integer type, which ac_fixed values cannot be '
            f"written into with the {self.backend.name} backend; use 'fixed<{result.width},{result.width}>' "
            '(the same values, floored as ac_int does)'
        ]

    # ---- queries (hls4ml 1.x names) --------------------------------------------------------------
    @property
    def output_dir(self) -> str:
        return self.config['OutputDir']

    @property
    def project_name(self) -> str:
        return self.config['ProjectName']

    def get_layers(self) -> list[Layer]:
        return list(self.graph.layers.values())

    def get_input_variables(self) -> list[TensorVariable]:
        return [self.get_layer_output_variable(name) for name in self.graph.inputs]

    def get_output_variables(self) -> list[TensorVariable]:
        return [self.get_layer_output_variable(name) for name in self.graph.outputs]

    def get_weight_variables(self) -> dict[str, np.ndarray]:
        return {f'{layer.name}/{name}': values for layer in self.get_layers() for name, values in layer.weights.items()}

    def get_layer_output_variable(self, output_name: str) -> TensorVariable:
        """The variable of the tensor named `output_name` (hls4ml 1.x: the output of the layer of that name)."""
        return self.graph.producer(output_name).get_output_variable(output_name)

    @property
    def inputs(self) -> list[str]:
        """The model's input tensor names (hls4ml 1.x: its input layers' names; they coincide here)."""
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list[str]:
        return list(self.graph.outputs)

    def __str__(self) -> str:
        return format_graph(self.graph)

    # ---- the project ----------------------------------------------------------------------------
    @property
    def design(self) -> Design:
        """What the writer, the lowering, the estimator and the vendor builds read of this model."""
        return Design(self.graph, self.config, self.backend)

    def write(self) -> str:
        """Write the HLS project (the Verilog backend: the RTL project) into `output_dir`; returns its path."""
        if self.backend.writes_rtl:
            from hls4ml.writer.rtl import write_rtl_project

            return str(write_rtl_project(self.design)[0])
        return str(write_project(self.design).path)

    def compile(self) -> None:
        """Write the project and build its C-simulation library (cached by content hash) from exactly
        the files written; on the Verilog backend, the Verilator co-simulation of the RTL written.
        Safe to call from several threads: they compile one at a time."""
        with self._compile_lock:
            if self.backend.writes_rtl:
                self._simulation = self._rtl_simulation()
                return
            from hls4ml.csim import Simulation  # loads with the first compile()

            self._simulation = Simulation.build(write_project(self.design).csim)

    def _rtl_simulation(self) -> RTLSimulation:
        """The Verilog backend's compile(): the RTL written and Verilated; its trace build is rendered and
        compiled when trace() first asks for it."""
        from hls4ml.csim.rtl import RTLSimulation
        from hls4ml.writer.rtl import rtl_interface, trace_interface, write_rtl_project

        design = self.design
        project = write_rtl_project(design)[1]
        input_types = [self.graph.producer(name).types['result'] for name in self.graph.inputs]
        return RTLSimulation.build(rtl_interface(project), input_types, functools.partial(trace_interface, design))

    def _ensure_compiled(self) -> Simulation | RTLSimulation:
        with self._compile_lock:
            if self._simulation is None:
                self.compile()
            assert self._simulation is not None
            return self._simulation

    def compiled_simulation(self, purpose: str) -> Simulation | RTLSimulation:
        """The simulation compile() built (the C-simulation, or the Verilog backend's RTL simulation);
        refuses (RuntimeError) a model not compiled yet, or whose weights changed since (update_weights)."""
        with self._compile_lock:
            if self._simulation is None:
                raise RuntimeError(f'{purpose} runs on the C-simulation: call hls_model.compile() first')
            return self._simulation

    def learner(self, layer_name: str) -> Any:
        """On-chip learning of a SOM (Kohonen), ReSOM or ReSOMMaps (Hebbian) layer on the compiled firmware:
        a hls4ml.learning.SOMLearner, ReSOMLearner or ReSOMMapsLearner (docs/som.md, "On-chip learning")."""
        if self.backend.writes_rtl:
            raise RuntimeError(
                f'on-chip learning runs on the C-simulation of an HLS backend, not on the {self.backend.name} '
                "backend's RTL simulation: convert the model with an HLS backend (e.g. Vitis) for it"
            )
        from hls4ml.learning import learner_for

        return learner_for(cast('LearningModel', self), layer_name)  # an HLS backend: its simulation is a C one

    def update_weights(self, layer_name: str, weights: dict[str, np.ndarray]) -> None:
        """Replace weights of a layer (same shapes, finite); the next predict() compiles again."""
        if layer_name not in self.graph.layers:
            raise ValueError(f'no layer {layer_name!r} in the model; its layers: {", ".join(self.graph.layers)}')
        layer = self.graph.layers[layer_name]
        for name, values in weights.items():
            values = np.asarray(values, dtype=np.float64)
            old = layer.weights.get(name)
            if old is None or old.shape != values.shape or not np.all(np.isfinite(values)):
                shape = None if old is None else old.shape
                raise ValueError(
                    f'{layer.describe()}: weights {name!r} must be finite of shape {shape}, got {values.shape}'
                )
        with self._compile_lock:
            layer.weights.update({name: np.array(values, dtype=np.float64) for name, values in weights.items()})
            self._simulation = None

    def predict(self, x: Any) -> Any:
        """Bit-accurate firmware outputs for a batch: hls4ml 1.x shapes (flattened per sample)."""
        return self._ensure_compiled().predict(x)

    def trace(self, x: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """(predictions, {layer name: outputs of shape (n_samples, *layer output shape)})."""
        return self._ensure_compiled().trace(x)

    def estimate(self, part: str | None = None) -> Estimate:
        """Analytic latency and resource estimate (hls4ml.estimate.Estimate): no vendor tool needed.
        `part` overrides the configured part (it chooses the device facts and the utilisation)."""
        from hls4ml.estimate import estimate_model
        from hls4ml.estimate.rtl import estimate_rtl

        if self.backend.writes_rtl:
            return estimate_rtl(self.design, part)
        return estimate_model(self.design, part)

    def build(self, **kwargs: Any) -> dict[str, Any]:
        """Run the backend's vendor tool on the written project (it must be installed) and return its
        parsed reports, as hls4ml.report.parse_<vendor>_report gives them (docs/backends.md)."""
        check_build_keywords(self.backend, kwargs)
        with project_lock(Path(self.output_dir)):  # no other writer changes the project during the build
            self.write()
            return self.backend.build(self.design, **kwargs)
