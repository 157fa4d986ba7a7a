"""Design-space exploration of the jet-tagging MLP (16-64-32-32-5) with `hls4ml.explore` on Dask.

    .venv/bin/python examples/explore_jet_mlp.py [--output-dir DIR] [--workers N] [--client ADDRESS]

1. Trains the MLP of examples/jet_tagging_mlp.py on its offline dataset (make_classification).
2. Grid: one precision for the whole model x reuse factor x strategy (40 points), accuracy on the
   test set from the bit-accurate emulator, LUTs and latency from the estimator; prints the Pareto
   front and saves its figure.
3. Greedy: shrinks each layer's precision while the accuracy stays within 1 % of the 16-bit start;
   prints the chosen per-layer precisions and the config dictionary to pass to convert_from_keras_model.
Points run on a LocalCluster of one worker process per core (`--workers`), or on your cluster
(`--client tcp://scheduler:8786`), or in this process (`--client serial`); results are cached in
`<output-dir>/cache`, so a second run only computes what changed.

Keras is imported inside the functions, not at the top: Dask starts its worker processes by
re-importing this script, and the workers need only hls4ml (the model reaches them as hls4ml's IR).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import hls4ml  # noqa: E402
from hls4ml.exploration import Space  # noqa: E402

WIDTHS = [(16, 6), (14, 6), (12, 5), (10, 4), (9, 4), (8, 3), (7, 3), (6, 3), (5, 2)]
LAYERS = ('fc1', 'fc2', 'fc3', 'output')


def trained_model(epochs: int, samples: int) -> tuple[Any, Any, Any]:
    """The jet-tagging MLP trained on the offline dataset; (model, x_test, y_test) with `samples` test rows."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from jet_tagging_mlp import make_data, train_model

    x_train, x_test, y_train, y_test = make_data()
    return train_model(x_train, y_train, epochs=epochs), x_test[:samples], y_test[:samples]


def grid_sweep(model: Any, common: dict[str, Any], output_dir: Path) -> Any:
    """One precision for the whole model x reuse factor x strategy; the front of accuracy, LUT, latency."""
    space = Space(
        precision=[(16, 6), (12, 5), (10, 4), (8, 3), (6, 3)],
        reuse_factor=[1, 2, 4, 8],
        strategy=['Latency', 'Resource'],
    )
    grid = hls4ml.explore(model, space, objectives=('accuracy', 'lut', 'latency'), **common)
    print(f'\n== grid: {grid}\n')
    grid.plot(str(output_dir / 'front.png'))
    print(f'front figure: {output_dir / "front.png"}')
    return grid


def greedy_sweep(model: Any, common: dict[str, Any]) -> Any:
    """Each layer's precision shrunk while the accuracy stays within 1 % of the 16-bit start."""
    space = Space(precision=dict.fromkeys(LAYERS, WIDTHS))
    greedy = hls4ml.explore(model, space, strategy='greedy', tolerance=0.01, objectives=('accuracy', 'lut'), **common)
    start, chosen = greedy.points.iloc[0], greedy.points.loc[greedy.selected]
    print(f'\n== greedy: {len(greedy.points)} points; start accuracy {start["accuracy"]:.4f}, LUT {start["lut"]:.0f}')
    layers = ', '.join(f'{layer} {chosen["precision:" + layer]}' for layer in LAYERS)
    print(f'chosen: {layers}')
    print(f'        accuracy {chosen["accuracy"]:.4f}, LUT {chosen["lut"]:.0f}, latency {chosen["latency"]:.0f} cycles')
    print(f'config for convert_from_keras_model: {greedy.config(greedy.selected)}')
    return greedy


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--output-dir', default='hls4mlprj_explore', help='cache and figure go here')
    parser.add_argument('--workers', type=int, default=None, help='LocalCluster workers (default: one per core)')
    parser.add_argument('--client', default=None, help="a scheduler address, or 'serial' for no Dask")
    parser.add_argument('--epochs', type=int, default=8)
    parser.add_argument('--samples', type=int, default=5000, help='test samples the accuracy is measured on')
    args = parser.parse_args(argv)
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    model, x_test, y_test = trained_model(args.epochs, args.samples)
    common = {'data': (x_test, y_test), 'client': args.client, 'n_workers': args.workers}
    common.update({'cache_dir': output_dir / 'cache', 'part': 'xcu250-figd2104-2L-e'})
    return {'grid': grid_sweep(model, common, output_dir), 'greedy': greedy_sweep(model, common)}


if __name__ == '__main__':
    main()
