"""Report dictionaries as tables: plain text in a terminal, HTML in a Jupyter notebook."""

from __future__ import annotations

import html
from typing import Any

Table = tuple[str, list[tuple[str, str]]]  # a title and its (label, value) rows

VIVADO_LATENCY = (
    ('Target clock period (ns)', 'TargetClockPeriod'),
    ('Estimated clock period (ns)', 'EstimatedClockPeriod'),
    ('Best latency (cycles)', 'BestLatency'),
    ('Worst latency (cycles)', 'WorstLatency'),
    ('Interval min (cycles)', 'IntervalMin'),
    ('Interval max (cycles)', 'IntervalMax'),
    ('Area score', 'AreaScore'),
)
RESOURCE_NAMES = ('BRAM_18K', 'DSP', 'DSP48E', 'FF', 'LUT', 'URAM')


def vivado_tables(report: dict[str, Any]) -> list[Table]:
    """The tables of a parse_vivado_report (or parse_catapult_report) dictionary."""
    tables: list[Table] = []
    synthesis = report.get('CSynthesisReport')
    if synthesis:
        rows = [(label, synthesis[key]) for label, key in VIVADO_LATENCY if key in synthesis]
        for name in RESOURCE_NAMES:
            if name in synthesis:
                available = synthesis.get(f'Available{name}')
                rows.append((name, f'{synthesis[name]} of {available}' if available else synthesis[name]))
        tables.append(('C synthesis', rows))
    cosim = report.get('CosimReport')
    if cosim:
        tables.append(('Co-simulation', [(key, str(value)) for key, value in cosim.items()]))
    for key, title in (
        ('VivadoSynthReport', 'Vivado synthesis'),
        ('UtilizationReport', 'Vivado synthesis'),
        ('TimingReport', 'Timing (ns)'),
    ):
        if report.get(key):
            tables.append((title, [(name, str(value)) for name, value in report[key].items()]))
    for key, title in (('CSimResults', 'C simulation'), ('CosimResults', 'RTL co-simulation')):
        if report.get(key) is not None:
            tables.append((title, [('samples in the results log', str(len(report[key])))]))
    return tables


def oneapi_tables(report: dict[str, Any]) -> list[Table]:
    """The tables of a parse_oneapi_report dictionary, one group per target."""
    tables: list[Table] = []
    for target, parts in report.items():
        hls = parts.get('HLS', {})
        total, available = hls.get('total', {}), hls.get('available', {})
        rows = [(name, f'{value} of {available.get(name, "?")}') for name, value in total.items()]
        if rows:
            tables.append((f'{target}: compiler estimate', rows))
        for key, title in (('Loop', 'loops'), ('Quartus', 'Quartus fit')):
            if parts.get(key):
                tables.append((f'{target}: {title}', [(name, str(value)) for name, value in parts[key].items()]))
    return tables


def as_text(tables: list[Table]) -> str:
    if not tables:
        return 'The report is empty: no synthesis, co-simulation or Vivado results were found.'
    blocks = []
    for title, rows in tables:
        width = max(len(label) for label, _ in rows) if rows else 0
        blocks.append('\n'.join([f'== {title}', *(f'  {label:<{width}}  {value}' for label, value in rows)]))
    return '\n\n'.join(blocks)


def as_html(tables: list[Table]) -> str:
    parts = []
    for title, rows in tables:
        body = ''.join(f'<tr><td>{html.escape(label)}</td><td>{html.escape(value)}</td></tr>' for label, value in rows)
        parts.append(f'<h4>{html.escape(title)}</h4><table>{body}</table>')
    return ''.join(parts)


def in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython's ZMQ shell)."""
    try:
        from IPython import get_ipython  # type: ignore[import-not-found]
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == 'ZMQInteractiveShell'


def show_tables(tables: list[Table]) -> None:
    if in_notebook() and tables:
        from IPython.display import HTML, display  # type: ignore[import-not-found]

        display(HTML(as_html(tables)))
    else:
        print(as_text(tables))


def print_vivado_report(report_dict: dict[str, Any]) -> None:
    """Print a parse_vivado_report (or parse_catapult_report) dictionary as tables."""
    show_tables(vivado_tables(report_dict))


def print_oneapi_report(report_dict: dict[str, Any]) -> None:
    """Print a parse_oneapi_report dictionary as tables."""
    show_tables(oneapi_tables(report_dict))
