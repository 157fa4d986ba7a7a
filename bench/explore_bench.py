"""Points per minute of `hls4ml.explore` on the jet-tagging MLP (16-64-32-32-5): in this process
(serial), and on a LocalCluster of 1 and of 2 worker processes; accuracy from the emulator and from
the C-simulation (cold compiles: a fresh compile cache per run).

    .venv/bin/python bench/explore_bench.py [--points 16] [--samples 5000] [--output bench/results/explore.md]

The clusters are started before the clock starts (their start-up is printed apart); the results
cache is off, so every point is computed. The machine is shared: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import numpy as np  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.exploration import Space  # noqa: E402

PRECISIONS = [(16, 6), (14, 6), (12, 5), (10, 4), (9, 4), (8, 3), (7, 3), (6, 3)]


def busy(seconds: float) -> float:
    """Integer numpy work for about `seconds` on an idle core; returns the wall time it took here."""
    values = np.arange(1 << 20, dtype=np.int64)
    start = time.perf_counter()
    for _ in range(int(seconds * 400)):
        values = (values * 3 + 1) & 0xFFFF
    return time.perf_counter() - start


def parallel_headroom() -> float:
    """How many cores this machine gives two processes at once right now: 2 x (one alone) / (two at once).
    2.0 on an idle 2-core machine; near 1.0 when other jobs hold a core, and then 2 workers cannot
    beat 1 whatever the code does."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        pool.submit(busy, 0.1).result()  # both processes started
        alone = pool.submit(busy, 1.0).result()
        together = max(future.result() for future in [pool.submit(busy, 1.0), pool.submit(busy, 1.0)])
    return 2 * alone / together


def model_and_data(samples: int) -> tuple:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mlp_bench import make_model  # Keras only here: the workers re-import this script

    model = make_model('mlp')
    x = np.random.default_rng(0).standard_normal((samples, 16)).astype(np.float32)
    return model, x, model.predict(x, verbose=0).argmax(axis=1)


def space(points: int) -> Space:
    precisions = PRECISIONS[: max(1, points // 4)]
    return Space(precision=precisions, reuse_factor=[1, 4], strategy=['Latency', 'Resource'])


def timed(model, data, grid: Space, client, fidelity: str) -> tuple[float, int]:
    start = time.perf_counter()
    result = hls4ml.explore(model, grid, data, client=client, cache_dir=None, progress=False, accuracy_by=fidelity)
    seconds = time.perf_counter() - start
    failed = int(result.points['error'].notna().sum())
    return 60 * len(result.points) / seconds, failed


def run_on(workers: int, model, data, grid: Space, fidelity: str) -> tuple[float, float, int]:
    """(points per minute, cluster start-up seconds, failed points) on a fresh LocalCluster."""
    from distributed import Client

    from hls4ml.exploration.running import local_cluster

    start = time.perf_counter()
    cluster = local_cluster(workers)  # as hls4ml.explore starts its own
    client = Client(cluster)
    startup = time.perf_counter() - start
    try:
        rate, failed = timed(model, data, grid, client, fidelity)
    finally:
        client.close()
        cluster.close()
    return rate, startup, failed


CACHES: list[str] = []  # removed at the end


def fresh_compile_cache() -> None:
    """Cold C-simulation compiles from here on (worker processes read the variable when they start)."""
    CACHES.append(tempfile.mkdtemp(prefix='hls4ml-explore-bench-'))
    os.environ['HLS4ML_CACHE_DIR'] = CACHES[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--points', type=int, default=16, help='grid points (a multiple of 4)')
    parser.add_argument('--samples', type=int, default=5000)
    parser.add_argument('--output', default=None, help='also write the table to this Markdown file')
    args = parser.parse_args()
    model, x, y = model_and_data(args.samples)
    grid = space(args.points)
    headroom = parallel_headroom()
    lines = [
        f'jet-tagging MLP, Vitis, {grid.size()} grid points (precision x reuse factor 1, 4 x Latency, Resource), '
        f'{args.samples} samples, {os.cpu_count()} cores shared with other jobs (noisy: compare ratios in one run)',
        '',
        f'parallel headroom before the runs (2.0: two free cores): {headroom:.2f}',
        '',
        '| accuracy from | runner | points/min | vs serial | cluster start-up s | failed |',
        '|---|---|---|---|---|---|',
    ]
    for fidelity in ('emulator', 'csim'):
        fresh_compile_cache()
        serial, failed = timed(model, (x, y), grid, 'serial', fidelity)
        lines.append(f'| {fidelity} | serial (no Dask) | {serial:.1f} | 1.00 | - | {failed} |')
        for workers in (1, 2):
            fresh_compile_cache()
            rate, startup, failed = run_on(workers, model, (x, y), grid, fidelity)
            row = (
                f'| {fidelity} | LocalCluster, {workers} worker(s) | {rate:.1f} | {rate / serial:.2f} | {startup:.1f} |'
            )
            lines.append(f'{row} {failed} |')
            print(lines[-1], flush=True)
    lines.append('')
    lines.append(f'parallel headroom after the runs (2.0: two free cores): {parallel_headroom():.2f}')
    print('\n'.join(lines))
    if args.output:
        Path(args.output).write_text('\n'.join(lines) + '\n')
    for cache in CACHES:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
