"""Profiling: where a model's numbers lie against the fixed-point types chosen for them (hls4ml 1.x names).

    weights_model, weights_hls, activations_model, activations_hls = numerical(model, hls_model, X)
    figure = compare(model, hls_model, X, plot_type='norm_diff')   # framework vs firmware, per layer
    summary = overflow_summary(hls_model, X)                      # per layer: saturated/wrapped, below LSB
    print(summary); summary.to_dict()

The figures show log2|x| of every non-zero value, one row per weight array or layer, over a grey
band from the type's resolution 2^-F to its largest magnitude: values right of the band overflow
(they wrap or saturate), values left of it are lost below the least significant bit. Figures are
plain `matplotlib.figure.Figure`s (Agg, never shown); matplotlib is the `plot` extra.

Framework models may be Keras 3 or PyTorch; their values are matched to the converted layers by
name, with fused activations split off as `<layer>_<activation>` (as the converter names them).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.model.ir import Layer
from hls4ml.model.overflow import LayerOverflow, OverflowSummary, overflow_summary
from hls4ml.model.types import FixedPrecisionType, PrecisionType

PLOTS = ('boxplot', 'violinplot', 'histogram', 'FacetGrid')  # FacetGrid (seaborn in hls4ml 1.x): histograms
WEIGHT_TYPE_VARS = {'alpha': 'param', 'labels': 'label'}  # IR weight name -> its typed variable, when they differ
FRAMEWORK_WEIGHT_VARS = {  # framework parameter name -> the IR typed variable it becomes
    'kernel': 'weight',
    'depthwise_kernel': 'weight',
    'pointwise_kernel': 'weight',
    'weight': 'weight',
    'bias': 'bias',
    'alpha': 'param',
}


# ---- types --------------------------------------------------------------------------------------
def ap_fixed_WIFS(precision: PrecisionType) -> tuple[int, int, int, bool]:  # noqa: N802 (hls4ml 1.x name)
    """(width, integer bits, fraction bits, signed) of a fixed-point type."""
    if not isinstance(precision, FixedPrecisionType):
        raise ValueError(f'{precision} is not a fixed-point type')
    return precision.width, precision.integer, precision.fractional, precision.signed


def type_band(precision: PrecisionType | None) -> tuple[float, float] | None:
    """(log2 of the resolution, log2 of the largest magnitude) of a fixed-point type, else None."""
    if not isinstance(precision, FixedPrecisionType):
        return None
    return float(-precision.fractional), math.log2(max(abs(precision.min), precision.max))


def types_hlsmodel(hls_model: Any) -> dict[str, PrecisionType | None]:
    """'<layer>/<weight>' -> the type the weight array is written in."""
    return {
        f'{layer.name}/{name}': layer.types.get(WEIGHT_TYPE_VARS.get(name, name))
        for layer in hls_model.get_layers()
        for name in layer.weights
    }


def activation_types_hlsmodel(hls_model: Any) -> dict[str, PrecisionType | None]:
    """Layer name -> its result type."""
    return {layer.name: layer.types.get('result') for layer in hls_model.get_layers()}


# ---- values -------------------------------------------------------------------------------------
def weights_hlsmodel(hls_model: Any) -> dict[str, np.ndarray]:
    """'<layer>/<weight>' -> the float weights of the converted model (after fusions), flattened."""
    return {label: np.ravel(values) for label, values in hls_model.get_weight_variables().items()}


def activations_hlsmodel(hls_model: Any, X: Any) -> dict[str, np.ndarray]:
    """Layer name -> its firmware outputs on X (from `trace()`), flattened."""
    _, traced = hls_model.trace(_as_float64(X))
    return {name: np.ravel(values) for name, values in traced.items()}


def weights_keras(model: Any) -> dict[str, np.ndarray]:
    """'<layer>/<variable>' -> the values of every Keras variable, flattened."""
    from hls4ml.converters.keras.values import numpy_of

    return {
        f'{layer.name}/{variable.name}': np.ravel(numpy_of(variable))
        for layer in model.layers
        for variable in layer.weights
    }


def weights_torch(model: Any) -> dict[str, np.ndarray]:
    """'<module>/<parameter>' -> the values of every floating-point parameter and buffer, flattened."""
    named = [*model.named_parameters(), *model.named_buffers()]
    return {
        '/'.join(name.rsplit('.', 1)): tensor.detach().cpu().numpy().ravel()
        for name, tensor in named
        if tensor.is_floating_point()
    }


def get_ymodel_keras(model: Any, X: Any) -> dict[str, np.ndarray]:
    """Keras layer name -> its outputs on X; a layer with an activation also gives its output before
    the activation under its name and after it under `<name>_<activation>` (the converter's names)."""
    import keras

    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    fused = [
        layer
        for layer in layers
        if _activation_name(layer) not in (None, 'linear') and not isinstance(layer, keras.layers.Activation)
    ]
    symbolic = [layer.output for layer in layers] + [layer.input for layer in fused]
    values = _keras_outputs(model, symbolic, X)
    outputs = {layer.name: output for layer, output in zip(layers, values[: len(layers)], strict=True)}
    for layer, layer_input in zip(fused, values[len(layers) :], strict=True):
        outputs[f'{layer.name}_{_activation_name(layer)}'] = outputs[layer.name]
        outputs[layer.name] = _without_activation(layer, layer_input)
    return outputs


def _keras_outputs(model: Any, symbolic: list[Any], X: Any) -> list[np.ndarray]:
    import keras

    probe = keras.Model(model.inputs, symbolic)
    outputs = probe(list(X) if isinstance(X, (list, tuple)) else [X], training=False)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return [np.asarray(keras.ops.convert_to_numpy(values), dtype=np.float64) for values in outputs]


def _without_activation(layer: Any, layer_input: np.ndarray) -> np.ndarray:
    """The layer's output on its input values with its activation switched off for the call."""
    import keras

    activation = layer.activation
    try:
        layer.activation = keras.activations.linear
        output = layer(layer_input.astype(np.float32), training=False)
    finally:
        layer.activation = activation
    return np.asarray(keras.ops.convert_to_numpy(output), dtype=np.float64)


def _activation_name(layer: Any) -> str | None:
    activation = getattr(layer, 'activation', None)
    return None if activation is None else getattr(activation, '__name__', None)


def get_ymodel_torch(model: Any, X: Any) -> dict[str, np.ndarray]:
    """Node name (module path for modules, as the converter names them) -> its outputs on X."""
    import torch
    from torch import fx

    from hls4ml.converters.pytorch.trace import origin_of, trace

    traced = trace(model)
    outputs: dict[str, np.ndarray] = {}

    class Recorder(fx.Interpreter):
        def run_node(self, node: fx.Node) -> Any:
            result = super().run_node(node)
            if node.op.startswith('call_') and isinstance(result, torch.Tensor):
                outputs[origin_of(node, traced).name] = result.detach().cpu().numpy().astype(np.float64)
            return result

    arrays = X if isinstance(X, (list, tuple)) else [X]
    with torch.no_grad():
        Recorder(traced).run(*(torch.as_tensor(np.asarray(array, dtype=np.float32)) for array in arrays))
    return outputs


def get_ymodel(model: Any, X: Any) -> dict[str, np.ndarray]:
    """`get_ymodel_torch` for a `torch.nn.Module`, else `get_ymodel_keras`."""
    return get_ymodel_torch(model, X) if _is_torch(model) else get_ymodel_keras(model, X)


def _is_torch(model: Any) -> bool:
    return any(cls.__module__.startswith('torch.') for cls in type(model).__mro__)


def _framework_values(model: Any, hls_model: Any, X: Any) -> dict[str, np.ndarray]:
    """Converted layer name -> the framework's outputs of that layer on X (layers without a match left out).
    A layer matches by its own name, or (renamed layers) by its framework name when it is the last
    layer built from that framework layer: the parts a layer is split into cannot all be its output."""
    outputs = get_ymodel(model, X)
    layers = hls_model.get_layers()
    last_part = {layer.source_name: layer.name for layer in layers if layer.source_class}
    matched = {}
    for layer in layers:
        if layer.name in outputs:
            matched[layer.name] = outputs[layer.name]
        elif last_part.get(layer.source_name) == layer.name and layer.source_name in outputs:
            matched[layer.name] = outputs[layer.source_name]
    return matched


def _framework_weight_types(labels: list[str], hls_model: Any) -> dict[str, PrecisionType | None]:
    """The converted model's type for each framework weight '<layer>/<parameter>' it can be matched to."""
    by_source: dict[str, list[Layer]] = {}
    for layer in hls_model.get_layers():
        for key in {layer.name, layer.source_name, layer.source_name.replace('.', '_')} - {''}:
            by_source.setdefault(key, []).append(layer)
    types: dict[str, PrecisionType | None] = {}
    for label in labels:
        source, _, parameter = label.rpartition('/')
        var = FRAMEWORK_WEIGHT_VARS.get(parameter)
        candidates = [layer.types[var] for layer in by_source.get(source, []) if var in layer.types]
        types[label] = candidates[0] if candidates else None
    return types


# ---- figures ------------------------------------------------------------------------------------
def _log2_magnitudes(values: np.ndarray) -> np.ndarray:
    magnitudes = np.abs(np.asarray(values, dtype=np.float64).ravel())
    return np.log2(magnitudes[magnitudes > 0])


def _row_labels(labels: list[str], types: dict[str, PrecisionType | None]) -> list[str]:
    return [f'{label}  {types[label]}' if types.get(label) is not None else label for label in labels]


def distribution_figure(
    data: dict[str, np.ndarray], types: dict[str, PrecisionType | None], title: str, plot: str = 'boxplot'
) -> Any:
    """One row per entry of `data`: log2|x| of its non-zero values (as `plot`) over its type's band."""
    from hls4ml.utils.plotting import new_figure

    if plot not in PLOTS:
        raise ValueError(f'plot must be one of {", ".join(PLOTS)}, got {plot!r}')
    labels = list(data)
    figure = new_figure((9.0, 1.2 + 0.45 * max(len(labels), 1)))
    axes = figure.add_subplot()
    rows = np.arange(len(labels))[::-1].astype(float)  # the first layer on top
    for row, label in zip(rows, labels, strict=True):
        band = type_band(types.get(label))
        if band is not None:
            axes.barh(row, band[1] - band[0], left=band[0], height=0.8, color='0.88', edgecolor='0.6', zorder=0)
    series = {row: _log2_magnitudes(data[label]) for row, label in zip(rows, labels, strict=True)}
    drawn = {row: values for row, values in series.items() if values.size}
    if drawn and plot == 'boxplot':
        axes.boxplot(list(drawn.values()), positions=list(drawn), widths=0.5, **_horizontal())
    elif drawn and plot == 'violinplot':
        axes.violinplot(list(drawn.values()), positions=list(drawn), widths=0.7, **_horizontal())
    elif drawn:
        _ridge_histograms(axes, drawn)
    axes.set_yticks(rows, _row_labels(labels, types), fontsize=8)
    axes.set_xlabel('log2 |value|  (grey: the type, from its resolution to its largest value)')
    axes.set_title(title)
    axes.grid(axis='x', alpha=0.3)
    figure.tight_layout()
    return figure


def _horizontal() -> dict[str, Any]:
    """Horizontal boxes and violins: `orientation` from matplotlib 3.10, `vert` before it."""
    import matplotlib

    major, minor = (int(part) for part in matplotlib.__version__.split('.')[:2])
    return {'orientation': 'horizontal'} if (major, minor) >= (3, 10) else {'vert': False}


def _ridge_histograms(axes: Any, series: dict[float, np.ndarray]) -> None:
    low = min(float(values.min()) for values in series.values())
    high = max(float(values.max()) for values in series.values())
    edges = np.linspace(low - 0.5, high + 0.5, 41)
    for row, values in series.items():
        counts, _ = np.histogram(values, bins=edges)
        heights = 0.8 * counts / max(int(counts.max()), 1)
        axes.fill_between(edges[:-1], row - 0.4, row - 0.4 + heights, step='post', color='tab:blue', alpha=0.7)


def numerical(model: Any = None, hls_model: Any = None, X: Any = None, plot: str = 'boxplot') -> tuple[Any, ...]:
    """Four figures (None where there is nothing to draw): the framework model's weights, the converted
    model's weights, the framework model's layer outputs on X, and the firmware's (from `trace`).
    Framework values are drawn over the converted model's types where their layer can be matched."""
    if model is None and hls_model is None:
        raise ValueError('numerical() needs a framework model, an hls_model or both')
    hls_weight_types = types_hlsmodel(hls_model) if hls_model is not None else {}
    hls_result_types = activation_types_hlsmodel(hls_model) if hls_model is not None else {}
    figures: list[Any] = [None, None, None, None]
    if model is not None:
        weights = weights_torch(model) if _is_torch(model) else weights_keras(model)
        types = _framework_weight_types(list(weights), hls_model) if hls_model is not None else {}
        figures[0] = distribution_figure(weights, types, 'Weights: framework model', plot) if weights else None
    if hls_model is not None:
        weights = weights_hlsmodel(hls_model)
        figures[1] = (
            distribution_figure(weights, hls_weight_types, 'Weights: converted model', plot) if weights else None
        )
    if X is not None and model is not None:
        if hls_model is not None:
            outputs = {name: np.ravel(v) for name, v in _framework_values(model, hls_model, X).items()}
        else:
            outputs = {name: np.ravel(v) for name, v in get_ymodel(model, X).items()}
        figures[2] = distribution_figure(outputs, hls_result_types, 'Layer outputs: framework model', plot)
    if X is not None and hls_model is not None:
        traced = activations_hlsmodel(hls_model, X)
        figures[3] = distribution_figure(traced, hls_result_types, 'Layer outputs: firmware (trace)', plot)
    return tuple(figures)


def layer_differences(model: Any, hls_model: Any, X: Any) -> dict[str, np.ndarray]:
    """Converted layer name -> firmware output minus framework output on X, shape (n_samples, size),
    for every traced layer the framework model has a matching output for. PyTorch's channels-first
    outputs are moved to the firmware's channels-last order unless ChannelsLastConversion is 'off'."""
    return {name: firmware - reference for name, (firmware, reference) in _paired_outputs(model, hls_model, X).items()}


def _paired_outputs(model: Any, hls_model: Any, X: Any) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Layer name -> (firmware outputs, framework outputs), both (n_samples, size) in the firmware's order."""
    reference = _framework_values(model, hls_model, X)
    _, traced = hls_model.trace(_as_float64(X))
    conversion = hls_model.config.get('HLSConfig', {}).get('Model', {}).get('ChannelsLastConversion', 'full')
    channels_first = _is_torch(model) and conversion != 'off'
    pairs = {}
    for name, values in traced.items():
        aligned = _aligned(reference.get(name), values.shape, channels_first)
        if aligned is not None:
            pairs[name] = (values.reshape(len(values), -1), aligned.reshape(len(values), -1))
    return pairs


def _aligned(reference: np.ndarray | None, shape: tuple[int, ...], channels_first: bool) -> np.ndarray | None:
    if reference is None or reference.size != int(np.prod(shape)):
        return None
    if channels_first and reference.ndim >= 3:
        reference = np.moveaxis(reference, 1, -1)
    return reference.reshape(shape)


def compare(keras_model: Any, hls_model: Any, X: Any, plot_type: str = 'dist_diff') -> Any:
    """Per layer, firmware vs framework: 'dist_diff' draws the distribution of the differences,
    'norm_diff' the relative L2 norm ||firmware - framework|| / ||framework||."""
    from hls4ml.utils.plotting import new_figure

    if plot_type not in ('dist_diff', 'norm_diff'):
        raise ValueError(f"plot_type must be 'dist_diff' or 'norm_diff', got {plot_type!r}")
    pairs = _paired_outputs(keras_model, hls_model, X)
    if not pairs:
        raise ValueError('no converted layer could be matched to a framework layer output by name')
    differences = {name: firmware - reference for name, (firmware, reference) in pairs.items()}
    labels = list(differences)
    figure = new_figure((9.0, 1.2 + 0.4 * len(labels)))
    axes = figure.add_subplot()
    rows = np.arange(len(labels))[::-1].astype(float)
    if plot_type == 'norm_diff':
        norms = [
            np.linalg.norm(differences[name]) / max(float(np.linalg.norm(pairs[name][1])), 1e-30) for name in labels
        ]
        axes.barh(rows, norms, color='tab:orange')
        axes.set_xlabel('||firmware - framework||_2 / ||framework||_2')
    else:
        axes.boxplot([differences[name].ravel() for name in labels], positions=rows, **_horizontal())
        axes.set_xscale('symlog', linthresh=1e-3)
        axes.set_xlabel('firmware - framework')
    axes.set_yticks(rows, labels, fontsize=8)
    axes.set_title(f'Firmware vs framework per layer ({plot_type})')
    axes.grid(axis='x', alpha=0.3)
    figure.tight_layout()
    return figure


def _as_float64(X: Any) -> Any:
    """Inputs widened to float64, so that `trace` returns doubles (float32 would round wide types)."""
    if isinstance(X, (list, tuple)):
        return [np.asarray(array, dtype=np.float64) for array in X]
    return np.asarray(X, dtype=np.float64)


__all__ = [
    'LayerOverflow',
    'OverflowSummary',
    'activation_types_hlsmodel',
    'activations_hlsmodel',
    'ap_fixed_WIFS',
    'compare',
    'distribution_figure',
    'get_ymodel',
    'get_ymodel_keras',
    'get_ymodel_torch',
    'layer_differences',
    'numerical',
    'overflow_summary',
    'type_band',
    'types_hlsmodel',
    'weights_hlsmodel',
    'weights_keras',
    'weights_torch',
]
