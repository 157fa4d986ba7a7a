"""SOM and ReSOM at the sizes of the published work (docs/som.md, docs/resom.md "Throughput and
resources"): a 10x10 SOM over 784 inputs and a ReSOM of two 10x10 maps over 784 (MNIST-like) and 507
(spoken-digit MFCC-like) inputs, from seeded synthetic codebooks (no downloads).

    python bench/resom_scale_bench.py [--samples 2000] [--reuse 100]

For each model: estimate() of the Latency strategy (RF 1) and of the Resource strategy (RF given) on a
VU13P (xcvu13p: 12,288 DSPs); then the Resource model is compiled (g++ C-simulation), predict() is
timed on `--samples` inputs, and its outputs on the first 50 are checked bit for bit against the
reference interpreter; the Latency model is compiled and timed too (its outputs must equal
Resource's). Writes bench/results/resom_scale.json and .md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PART = 'xcvu13p-flga2577-2-e'
PIXELS, MFCC = 784, 507  # 28 x 28 images; 39 MFCC coefficients x 13 frames
INPUT_PRECISION = 'ufixed<8,0>'  # 8-bit pixels and features scaled to [0, 1)


def build(name: str, seed: int = 0):
    """The IR graph, its origin and a function drawing n inputs (seeded)."""
    from hls4ml.model.resom_graphs import resom_graph
    from hls4ml.model.som_graphs import som_graph

    rng = np.random.default_rng(seed)
    if name == 'som_10x10_784':
        graph, origin = som_graph(rng.random((100, PIXELS)), (10, 10), 'squared_euclidean', 'index')
        return graph, origin, lambda n: rng.random((n, PIXELS))
    lateral = rng.random((100, 100)) * (rng.random((100, 100)) > 0.5)
    codebooks = rng.random((100, PIXELS)), rng.random((100, MFCC))
    graph, origin = resom_graph(
        codebooks[0], (10, 10), codebooks[1], (10, 10), lateral, labels_x=rng.integers(0, 10, 100), beta_x=0.25
    )
    return graph, origin, lambda n: [rng.random((n, PIXELS)), rng.random((n, MFCC))]


def convert(name: str, strategy: str, reuse: int, folder: str):
    from hls4ml.model.graph import ModelGraph
    from hls4ml.utils.config import config_from_graph, create_config

    graph, origin, draw = build(name)
    config = create_config(folder, 'myproject', 'Vitis', io_type='io_parallel', part=PART)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', reuse, None)
    layer = graph.outputs[0]
    config['HLSConfig']['LayerName'][layer]['Strategy'] = strategy
    for input_name in graph.inputs:
        config['HLSConfig']['LayerName'][input_name]['Precision'] = INPUT_PRECISION
    return ModelGraph(config, graph, origin), draw


def summary(estimate) -> dict:
    total = estimate.total
    return {
        'latency_cycles': total.latency.to_dict(),
        'interval_cycles': total.interval.to_dict(),
        'resources': {name: value.to_dict() for name, value in total.resources.items()},
        'available': dict(estimate.available or {}),
    }


def measure(name: str, reuse: int, samples: int) -> dict:
    from hls4ml.model.interpreter import interpret

    with tempfile.TemporaryDirectory() as folder:
        latency, _ = convert(name, 'Latency', 1, folder + '/latency')
        model, draw = convert(name, 'Resource', reuse, folder + '/resource')
        result = {'model': name, 'reuse_factor': reuse, 'part': PART}
        result['latency_estimate'] = summary(latency.estimate())
        result['resource_estimate'] = summary(model.estimate())
        start = time.perf_counter()
        model.compile()
        result['compile_s'] = time.perf_counter() - start
        x = draw(samples)
        predicted, result['samples_per_s'] = _timed_predict(model, x, samples)
        head = [part[:50] for part in x] if isinstance(x, list) else x[:50]
        (reference,), _ = interpret(model, head)
        result['bit_exact_first_50'] = bool(np.array_equal(predicted[:50], reference.value.reshape(50, -1)))
        latency_predicted, result['latency_samples_per_s'] = _timed_predict(latency, x, samples)
        result['latency_equals_resource'] = bool(np.array_equal(latency_predicted, predicted))
    return result


def _timed_predict(model, x, samples: int) -> tuple[np.ndarray, float]:
    """predict() of a compiled model (compiled first, untimed) and its samples per second."""
    model.compile()
    start = time.perf_counter()
    predicted = np.asarray(model.predict(x)).reshape(samples, -1)
    return predicted, samples / (time.perf_counter() - start)


def sweep(reuse_factors: tuple[int, ...]) -> list[dict]:
    """estimate() of the paper-sized ReSOM under Resource at each reuse factor (no compile)."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for reuse in reuse_factors:
            model, _ = convert('resom_paper', 'Resource', reuse, f'{folder}/rf{reuse}')
            rows.append({'reuse_factor': reuse, **summary(model.estimate())})
    return rows


def sweep_markdown(rows: list[dict]) -> list[str]:
    lines = ['', '## resom_paper under Resource, by reuse factor (estimate only)', '']
    lines += ['| RF | DSP | LUT | BRAM_18K | latency (cycles) |', '| --- | --- | --- | --- | --- |']
    for row in rows:
        cells = [str(row['reuse_factor'])] + [_range(row['resources'].get(name)) for name in ('DSP', 'LUT', 'BRAM_18K')]
        lines.append('| ' + ' | '.join([*cells, _range(row['latency_cycles'])]) + ' |')
    return lines


def markdown(results: list[dict]) -> str:
    lines = [
        '# SOM and ReSOM at the published sizes (bench/resom_scale_bench.py)',
        '',
        f'Part {PART} (12,288 DSPs, 1,728,000 LUTs, 5,376 BRAM_18K); inputs {INPUT_PRECISION};',
        'estimate ranges low-high.',
        '',
        '| model | strategy | RF | DSP | LUT | BRAM_18K | latency (cycles) | II | C-sim samples/s |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ]
    for result in results:
        for key, strategy, reuse in (('latency_estimate', 'Latency', 1), ('resource_estimate', 'Resource', None)):
            row = result[key]
            rate = f'{result["samples_per_s" if reuse is None else "latency_samples_per_s"]:.0f}'
            cells = [result['model'], strategy, str(reuse or result['reuse_factor'])]
            cells += [_range(row['resources'].get(name)) for name in ('DSP', 'LUT', 'BRAM_18K')]
            cells += [_range(row['latency_cycles']), _range(row['interval_cycles']), rate]
            lines.append('| ' + ' | '.join(cells) + ' |')
    lines += [
        '',
        'Resource predict() bit-exact with the interpreter on the first 50 samples, and equal to Latency on all: ',
    ]
    lines[-1] += ', '.join(
        f'{result["model"]} {result["bit_exact_first_50"]} / {result["latency_equals_resource"]}' for result in results
    )
    lines += [', '.join(f'{result["model"]}: compile {result["compile_s"]:.1f} s' for result in results), '']
    return '\n'.join(lines)


def _range(value: dict | None) -> str:
    if value is None:
        return '0'
    low, high = round(value['low']), round(value['high'])
    return f'{low:,}' if low == high else f'{low:,}-{high:,}'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--samples', type=int, default=2000)
    parser.add_argument('--reuse', type=int, default=100)
    arguments = parser.parse_args()
    results = [measure(name, arguments.reuse, arguments.samples) for name in ('som_10x10_784', 'resom_paper')]
    rows = sweep((10, 25, 50, 100, 200, 400))
    folder = REPO / 'bench' / 'results'
    (folder / 'resom_scale.json').write_text(json.dumps({'models': results, 'resom_sweep': rows}, indent=2) + '\n')
    text = markdown(results) + '\n'.join(sweep_markdown(rows)) + '\n'
    (folder / 'resom_scale.md').write_text(text)
    print(text)


if __name__ == '__main__':
    main()
