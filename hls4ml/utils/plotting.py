"""`plot_model`: the converted graph as a picture, drawn with matplotlib alone (no graphviz).

    hls4ml.utils.plot_model(hls_model, to_file='model.png')   # .png, .svg, .pdf, ... by extension

One box per layer (name, kind, input and output shapes, precisions), rows by depth from the inputs,
arrows for every edge: branches fan out, merges fan in, and edges that skip rows curve around the
boxes between. Inputs are green, outputs have a red border. Figures are plain
`matplotlib.figure.Figure`s on the Agg canvas: nothing opens a window (matplotlib: the `plot` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind

KIND_COLOURS: dict[str, str] = {  # box colour per group of layer kinds
    Kind.INPUT: '#c8e6c9',
    Kind.DENSE: '#bbdefb',
    Kind.CONV1D: '#bbdefb',
    Kind.CONV2D: '#bbdefb',
    Kind.DEPTHWISE_CONV1D: '#bbdefb',
    Kind.DEPTHWISE_CONV2D: '#bbdefb',
    Kind.ACTIVATION: '#ffe0b2',
    Kind.PARAMETRIZED_ACTIVATION: '#ffe0b2',
    Kind.PRELU: '#ffe0b2',
    Kind.HARD_ACTIVATION: '#ffe0b2',
    Kind.SOFTMAX: '#ffccbc',
    Kind.MERGE: '#e1bee7',
    Kind.CONCATENATE: '#e1bee7',
    Kind.DOT: '#e1bee7',
    Kind.BATCH_NORMALIZATION: '#fff9c4',
}
OTHER_COLOUR = '#eeeeee'
LINE_HEIGHT = 0.17  # inches per text line at FONT_SIZE
CHAR_WIDTH = 0.068  # inches per character at FONT_SIZE
FONT_SIZE = 8
ROW_GAP = 0.55  # inches between rows of boxes
COLUMN_GAP = 0.35


def require_matplotlib() -> Any:
    """The matplotlib module, or an ImportError that says how to install it."""
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError(
            "hls4ml's figures need matplotlib: pip install 'hls4ml[plot]' (or pip install matplotlib)"
        ) from error
    return matplotlib


def new_figure(size: tuple[float, float]) -> Any:
    """A figure on the Agg canvas (headless, whatever pyplot's backend is)."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size)
    FigureCanvasAgg(figure)
    return figure


def save_figure(figure: Any, to_file: str | Path, dpi: int = 100) -> Path:
    """Save by the file's extension (png, svg, pdf, ...); an unknown extension is refused by name."""
    path = Path(to_file)
    kinds = figure.canvas.get_supported_filetypes()
    extension = path.suffix.lstrip('.').lower()
    if extension not in kinds:
        raise ValueError(f'{str(path)!r}: cannot save a figure as {extension!r}; use one of {", ".join(sorted(kinds))}')
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=dpi)
    return path


def _depths(graph: Graph) -> dict[str, int]:
    """Longest path from an input, per layer (layers are in topological order)."""
    depths: dict[str, int] = {}
    for layer in graph.layers.values():
        producers = [graph.tensors[name].producer for name in layer.inputs]
        depths[layer.name] = 1 + max((depths[name] for name in producers), default=-1)
    return depths


def _shape_text(shape: tuple[int, ...]) -> str:
    return 'x'.join(map(str, shape)) or 'scalar'


def _box_lines(graph: Graph, layer: Layer, show_shapes: bool, show_precision: bool) -> list[str]:
    lines = [layer.name, layer.kind]
    if show_shapes:
        inputs = ', '.join(_shape_text(graph.tensors[name].shape) for name in layer.inputs)
        outputs = ', '.join(_shape_text(graph.tensors[name].shape) for name in layer.outputs)
        lines.append(f'{inputs} -> {outputs}' if inputs else f'-> {outputs}')
    if show_precision:
        ordered = sorted(layer.types.items(), key=lambda item: (item[0] != 'result', item[0]))
        lines += [f'{var}: {precision}' for var, precision in ordered]
    return lines


def plot_model(
    hls_model: Any,
    to_file: str | Path | None = None,
    show_shapes: bool = True,
    show_precision: bool = True,
    dpi: int = 100,
) -> Any:
    """Draw the converted model's graph; save it to `to_file` when given. Returns the figure."""
    graph: Graph = getattr(hls_model, 'graph', hls_model)
    depths = _depths(graph)
    rows: dict[int, list[Layer]] = {}
    for layer in graph.layers.values():
        rows.setdefault(depths[layer.name], []).append(layer)
    texts = {name: _box_lines(graph, layer, show_shapes, show_precision) for name, layer in graph.layers.items()}
    box_width = 0.3 + CHAR_WIDTH * max(len(line) for lines in texts.values() for line in lines)
    row_heights = {
        depth: 0.2 + LINE_HEIGHT * max(len(texts[layer.name]) for layer in row) for depth, row in rows.items()
    }
    widest = max(len(row) for row in rows.values())
    width = max(widest * (box_width + COLUMN_GAP) + COLUMN_GAP, 3.0)
    height = sum(row_heights.values()) + ROW_GAP * (len(rows) + 1)
    figure = new_figure((width, height))
    axes = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    axes.set_xlim(0, width)
    axes.set_ylim(0, height)
    axes.axis('off')
    centres = _place(rows, row_heights, box_width, width, height)
    outputs = {graph.tensors[name].producer for name in graph.outputs}
    for name, layer in graph.layers.items():
        _draw_box(axes, centres[name], box_width, row_heights[depths[name]], texts[name], layer, name in outputs)
    for layer in graph.layers.values():
        for tensor in layer.inputs:
            producer = graph.tensors[tensor].producer
            skipped = depths[layer.name] - depths[producer] > 1
            start = (centres[producer][0], centres[producer][1] - row_heights[depths[producer]] / 2)
            end = (centres[layer.name][0], centres[layer.name][1] + row_heights[depths[layer.name]] / 2)
            _draw_edge(axes, start, end, skipped)
    if to_file is not None:
        save_figure(figure, to_file, dpi)
    return figure


def _place(
    rows: dict[int, list[Layer]], heights: dict[int, float], box_width: float, width: float, height: float
) -> dict[str, tuple[float, float]]:
    """Box centres: rows top to bottom, each row centred horizontally."""
    centres = {}
    top = height - ROW_GAP
    for depth in sorted(rows):
        row = rows[depth]
        span = len(row) * box_width + (len(row) - 1) * COLUMN_GAP
        left = (width - span) / 2
        for index, layer in enumerate(row):
            centres[layer.name] = (left + index * (box_width + COLUMN_GAP) + box_width / 2, top - heights[depth] / 2)
        top -= heights[depth] + ROW_GAP
    return centres


def _draw_box(
    axes: Any, centre: tuple[float, float], width: float, height: float, lines: list[str], layer: Layer, output: bool
) -> None:
    from matplotlib.patches import FancyBboxPatch

    x, y = centre
    box = FancyBboxPatch(
        (x - width / 2, y - height / 2),
        width,
        height,
        boxstyle='round,pad=0.02,rounding_size=0.08',
        facecolor=KIND_COLOURS.get(layer.kind, OTHER_COLOUR),
        edgecolor='#c62828' if output else '0.35',
        linewidth=2.0 if output else 1.0,
    )
    axes.add_patch(box)
    first = y + height / 2 - 0.1 - LINE_HEIGHT / 2
    for index, line in enumerate(lines):
        weight = 'bold' if index == 0 else 'normal'
        style = 'italic' if index == 1 else 'normal'
        axes.text(
            x,
            first - index * LINE_HEIGHT,
            line,
            ha='center',
            va='center',
            fontsize=FONT_SIZE,
            weight=weight,
            style=style,
        )


def _draw_edge(axes: Any, start: tuple[float, float], end: tuple[float, float], curved: bool) -> None:
    """An arrow; one that skips rows bows outwards (away from the centre line) around the boxes between."""
    bend = (0.35 if start[0] < end[0] else -0.35) if curved else 0.0
    axes.annotate(
        '',
        xy=end,
        xytext=start,
        arrowprops={
            'arrowstyle': '-|>',
            'color': '0.25',
            'linewidth': 1.0,
            'shrinkA': 1,
            'shrinkB': 1,
            'connectionstyle': f'arc3,rad={bend}',
        },
    )
