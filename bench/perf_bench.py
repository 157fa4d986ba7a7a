"""C-simulation performance beside the published hls4ml 1.3.0 (issue 22), with one command:

    python bench/perf_bench.py [--peer-python PYTHON] [--repeat 3] [--samples 20000] [--models a,b]
                               [--out bench/results/perf.json] [--md bench/results/perf.md]

The peer's interpreter is --peer-python, else $HLS4ML_PEER_PYTHON, else ~/.cache/hls4ml-peer/venv/bin/python
(the venv ../shared/bench/setup_peer_venv.sh makes); without it only our figures are measured. Each
(model, repeat, implementation) is one fresh worker process (this file with `worker`), interleaved so
that machine noise hits both alike; ours runs this tree (PYTHONPATH) with a fresh compile cache. A
worker times `import hls4ml`, convert + write, a cold compile, a warm compile (unchanged model), a
compile after changing one layer's precision (ours), predict() (median of 3 calls on a share of --samples
inputs per model, after a warm-up), trace() (median of 3), and reports peak memory: the worker's own, what
hls4ml added to it (its peak minus the peak before `import hls4ml`, when Keras and the model are loaded), and
the compilers' during the cold compile (bench/child_memory.py), and the largest difference from Keras. The
driver prints medians, ratios ours / hls4ml, whether both gave the same bits, predict as a share of the
physical floor (docs/performance.md says how that is computed), and how time and memory grow with the model.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from child_memory import ChildPeakMemory  # noqa: E402
from perf_models import MODELS, BenchModel, build, inputs, macs  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PEER_DEFAULT = Path.home() / '.cache' / 'hls4ml-peer' / 'venv' / 'bin' / 'python'
PRECISION = 'ap_fixed<16,6>'
PYCACHE = Path(tempfile.gettempdir()) / 'hls4ml-perf-bench-pycache'


# ---- worker (runs inside the venv under test) ------------------------------------------------------
def worker(name: str, samples: int, directory: Path, label: str) -> dict:
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    import warnings

    warnings.simplefilter('ignore')
    spec = MODELS[name]
    model = build(spec)
    x = inputs(spec, max(200, int(samples * spec.sample_share)))
    expected = np.asarray(model.predict(x[:2000], verbose=0), dtype=np.float64).reshape(len(x[:2000]), -1)
    framework_peak_mb = _peak_rss_mb()
    start, cpu_start = time.perf_counter(), time.process_time()
    import hls4ml

    result: dict = {'model': name, 'import_s': time.perf_counter() - start, 'macs': macs(model)}
    start = time.perf_counter()
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision=PRECISION)
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(directory / 'prj'), backend='Vitis', io_type=spec.io_type
    )
    hls_model.write()
    result['convert_write_s'] = time.perf_counter() - start
    # CPU seconds of import + convert + write, all threads: comparable under load, where wall time is not
    result['import_convert_write_cpu_s'] = time.process_time() - cpu_start
    # Ours loads its subpackages on first use, the peer when imported: compare the sum.
    result['import_convert_write_s'] = result['import_s'] + result['convert_write_s']
    with ChildPeakMemory() as compilers:
        result['compile_cold_s'] = _timed(hls_model.compile)
    result['compiler_peak_mb'] = compilers.megabytes
    result['compile_warm_s'] = _timed(hls_model.compile)
    result.update(_predict_figures(hls_model, x, expected))
    result['peak_rss_mb'] = _peak_rss_mb()
    result['added_peak_mb'] = result['peak_rss_mb'] - framework_peak_mb
    if label == 'ours':  # the target is against our own cold compile; the peer has no cache to reuse
        result['compile_changed_s'] = _changed_precision_compile(hls4ml, model, config, spec, directory)
        result['guard_s'] = _guard_seconds(hls4ml, model, config, spec.io_type)
    np.save(directory / 'predictions.npy', result.pop('predictions'))
    return result


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _guard_seconds(hls4ml, model, config: dict, io_type: str) -> float:
    """What the conversion guard (the check against Keras) adds to a conversion: the median difference of
    three conversions with and without it (after the first, so imports are not counted)."""

    def convert(check: bool) -> float:
        start = time.perf_counter()
        hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, backend='Vitis', io_type=io_type, check_conversion=check
        )
        return time.perf_counter() - start

    return statistics.median(convert(True) - convert(False) for _ in range(3))


def _timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _predict_figures(hls_model, x: np.ndarray, expected: np.ndarray) -> dict:
    hls_model.predict(x[:10])
    times, predicted = [], None
    for _ in range(3):
        start = time.perf_counter()
        predicted = np.asarray(hls_model.predict(x), dtype=np.float64).reshape(len(x), -1)
        times.append(time.perf_counter() - start)
    trace_s = statistics.median(_timed(lambda: hls_model.trace(x)) for _ in range(3))
    predict_s = statistics.median(times)
    return {
        'predict_samples_per_s': len(x) / predict_s,
        'trace_over_predict': trace_s / predict_s,
        'max_abs_diff_keras': float(np.abs(predicted[: len(expected)] - expected).max()),
        'predictions': predicted,
    }


def _changed_precision_compile(hls4ml, model, config: dict, spec: BenchModel, directory: Path) -> float | None:
    """Compile time after changing the result precision of one layer (a new model, the rest unchanged)."""
    layer = next((layer.name for layer in model.layers if type(layer).__name__ in ('Dense', 'Conv2D')), None)
    if layer is None:
        return None
    config.setdefault('LayerName', {})[layer] = {'Precision': {'result': 'ap_fixed<18,7>'}}
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(directory / 'prj2'), backend='Vitis', io_type=spec.io_type
    )
    hls_model.write()
    return _timed(hls_model.compile)


# ---- driver ------------------------------------------------------------------------------------------
def run_worker(python: str, label: str, name: str, samples: int, timeout: float) -> dict:
    """One worker process; a run past `timeout` seconds is ended and recorded as such."""
    environment = worker_environment(label)
    with tempfile.TemporaryDirectory(prefix='perf-bench-') as work:
        if label == 'ours':
            environment['HLS4ML_CACHE_DIR'] = str(Path(work) / 'cache')  # cold: a fresh compile cache
        command = [python, __file__, 'worker', '--model', name, '--samples', str(samples), '--dir', work]
        command += ['--label', label]
        done = _run_bounded(command, environment, timeout)
        if done is None:
            return {'model': name, 'impl': label, 'error': f'timeout: not done after {timeout:.0f} s'}
        if done.returncode:
            lines = done.stderr.strip().splitlines() or ['failed']
            return {'model': name, 'impl': label, 'error': lines[-1][-300:]}
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result['impl'], result['predictions'] = label, np.load(Path(work) / 'predictions.npy')
    return result


def _run_bounded(command: list[str], environment: dict, timeout: float) -> subprocess.CompletedProcess | None:
    """The worker's completed process, or None past `timeout`: then its whole process group is ended, the
    compiler it started included (ending the worker alone left hls4ml 1.3.0's g++ running for half an hour)."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def median_rows(runs: list[dict]) -> dict:
    """Medians of the numeric figures over repeats; errors kept as they are."""
    good = [run for run in runs if 'error' not in run]
    if not good:
        return runs[0]
    row = {key: value for key, value in good[0].items() if not isinstance(value, (int, float))}
    for key, value in good[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values = [run[key] for run in good if run.get(key) is not None]
            row[key] = statistics.median(values) if values else None
    return row


def peak_macs_per_second() -> tuple[float, str]:
    """Peak int16 multiply-accumulates per second of this machine's SIMD units, both cores, and how."""
    text = Path('/proc/cpuinfo').read_text() if Path('/proc/cpuinfo').exists() else ''
    flags = next((line.split(':')[1].split() for line in text.splitlines() if line.startswith('flags')), [])
    megahertz = next((float(line.split(':')[1]) for line in text.splitlines() if line.startswith('cpu MHz')), 2000.0)
    per_cycle = 32 if 'avx512_vnni' in flags else 16 if 'avx2' in flags else 8  # int16 MACs per core and cycle
    cores = os.cpu_count() or 1
    how = f'{cores} cores x {megahertz / 1000:.2f} GHz x {per_cycle} int16 MACs/cycle'
    return cores * megahertz * 1e6 * per_cycle, how


def worker_environment(label: str) -> dict[str, str]:
    """The environment of a worker: ours imports this tree from the bytecode `precompile` wrote, as an
    installed package imports the .pyc files pip wrote (the peer's venv has them), even where
    PYTHONDONTWRITEBYTECODE is set; else every fresh process would compile our sources again."""
    environment = {
        key: value for key, value in os.environ.items() if key not in ('PYTHONPATH', 'PYTHONDONTWRITEBYTECODE')
    }
    if label == 'ours':
        environment['PYTHONPATH'] = str(REPO)
        environment['PYTHONPYCACHEPREFIX'] = str(PYCACHE)
    return environment


IMPORTED_IN_TIMING = ('jinja2', 'markupsafe', 'yaml')  # third-party packages first imported inside the timed part


def precompile(python: str) -> None:
    """Bytecode of this tree under PYCACHE (what `pip install` does for an installed package), and of the
    third-party packages our conversion imports: under PYTHONPYCACHEPREFIX Python looks for every module's
    bytecode there only, so without this jinja2 and yaml were compiled from source in each worker
    (about 0.15 s of CPU charged to us alone; the peer's worker reads its venv's own bytecode). The writer's
    compiled templates too, which any earlier conversion on the machine leaves beside them (writer/templates.py),
    and the kernel library's precompiled headers, which setup_env.sh builds beside the package (csim/precompiled.py):
    the workers' compile cache is empty, but a first-ever conversion or compile is not what they measure
    (docs/performance.md gives those figures apart)."""
    environment = worker_environment('ours')
    find = (
        'import importlib.util as u, sys; print(*(u.find_spec(n).submodule_search_locations[0] for n in sys.argv[1:]))'
    )
    found = subprocess.run([python, '-c', find, *IMPORTED_IN_TIMING], env=environment, check=True, capture_output=True)
    folders = [str(REPO / 'hls4ml'), *found.stdout.decode().split()]
    subprocess.run([python, '-m', 'compileall', '-q', *folders], env=environment, check=True, stdout=subprocess.DEVNULL)
    templates = 'from hls4ml.writer.templates import precompile_templates as p; p(["vitis", "oneapi", "catapult"])'
    subprocess.run([python, '-c', templates], env=environment, check=True)
    headers = 'from hls4ml.writer import precompile_headers as p; p()'  # as scripts/setup_env.sh
    subprocess.run([python, '-c', headers], env=environment, check=True)


def import_seconds(python: str, label: str) -> float:
    """`import hls4ml` in a fresh interpreter (median of 3), frameworks not imported beforehand."""
    environment = worker_environment(label)
    code = 'import time; t = time.perf_counter(); import hls4ml; print(time.perf_counter() - t)'
    times = []
    for _ in range(3):
        done = subprocess.run([python, '-c', code], capture_output=True, text=True, env=environment, timeout=600)
        times.append(float(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else float('nan'))
    return statistics.median(times)


def compare(ours: dict, peer: dict | None, peak: float) -> dict:
    """The ratios of one model: ours / hls4ml for times, hls4ml / ours for throughput, and the floor share."""
    figures = {'model': ours['model']}
    if 'error' in ours:
        return {**figures, 'error': ours['error']}
    rate = ours['predict_samples_per_s']
    figures['floor_share'] = rate * ours['macs'] / peak
    if peer is None or 'error' in peer:
        return {**figures, 'peer_error': (peer or {}).get('error', 'not run')}
    figures['predict_x'] = rate / peer['predict_samples_per_s']
    for key in ('compile_cold_s', 'import_convert_write_s', 'compile_warm_s', 'import_convert_write_cpu_s'):
        figures[key.removesuffix('_s') + '_ratio'] = ours[key] / peer[key]
    figures['same_bits'] = bool(np.array_equal(ours['predictions'], peer['predictions']))
    figures['max_bits_diff'] = float(np.abs(ours['predictions'] - peer['predictions']).max())
    return figures


def markdown(rows: list[dict], comparisons: list[dict], context: dict) -> str:
    lines = [
        f'Date {context["date"]}; {context["cpu"]}; load average {context["load"]}; peak {context["peak_how"]}.',
        f'`import hls4ml` (fresh process): ours {context["import_ours"]:.3f} s, hls4ml {context["import_peer"]:.3f} s.',
        '',
    ]
    tables = _row_table(rows) + [''] + _ratio_table(comparisons) + [''] + _growth_table(rows)
    return '\n'.join(lines + tables) + '\n'


def _figure(row: dict, key: str, digits: int) -> str:
    value = row.get(key)
    return '-' if value is None else f'{value:.{digits}f}'


def _row_table(rows: list[dict]) -> list[str]:
    lines = [
        '| model | impl | convert+write s (import+convert+write CPU s) | guard s | compile cold s | warm s | '
        'one layer changed s | predict samples/s | trace / predict | peak RSS MB (added by hls4ml) | '
        'compiler peak MB | '
        'max diff vs Keras |',
        '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ]
    for row in rows:
        if 'error' in row:
            lines.append(f'| {row["model"]} | {row["impl"]} | error: {row["error"][:120]} |||||||||||')
            continue
        lines.append(
            f'| {row["model"]} | {row["impl"]} | '
            f'{row["convert_write_s"]:.3f} ({_figure(row, "import_convert_write_cpu_s", 3)}) | '
            f'{_figure(row, "guard_s", 3)} | {row["compile_cold_s"]:.2f} | {row["compile_warm_s"]:.3f} | '
            f'{_figure(row, "compile_changed_s", 2)} | {row["predict_samples_per_s"]:,.0f} | '
            f'{row["trace_over_predict"]:.2f} | {row["peak_rss_mb"]:.0f} ({_figure(row, "added_peak_mb", 0)}) | '
            f'{_figure(row, "compiler_peak_mb", 0)} | '
            f'{row["max_abs_diff_keras"]:.4f} |'
        )
    return lines


def _ratio_table(comparisons: list[dict]) -> list[str]:
    lines = [
        '| model | predict ours / hls4ml | compile cold ours / hls4ml | import+convert+write ours / hls4ml '
        '(CPU) | same bits | share of the floor | measured (UTC, runs, load after) |',
        '|---|---|---|---|---|---|---|',
    ]
    for item in comparisons:
        when = f'{item["measured"]}, {item["runs"]}, {item["load_after"]}' if 'measured' in item else '-'
        if 'predict_x' not in item:
            share = f'{item["floor_share"]:.1%}' if 'floor_share' in item else '-'
            problem = item.get('error') or item.get('peer_error')
            lines.append(f'| {item["model"]} | {problem} | | | | {share} | {when} |')
            continue
        same = 'yes' if item['same_bits'] else f'no (max {item["max_bits_diff"]:.3g})'
        cpu = item.get('import_convert_write_cpu_ratio')
        lines.append(
            f'| {item["model"]} | {item["predict_x"]:.1f}x | {item["compile_cold_ratio"]:.2f}x | '
            f'{item["import_convert_write_ratio"]:.2f}x ({"-" if cpu is None else f"{cpu:.2f}x"}) | {same} | '
            f'{item["floor_share"]:.1%} | {when} |'
        )
    return lines


def _growth_table(rows: list[dict]) -> list[str]:
    """How compile time, predict time and memory grow with the model's work, both tools side by side."""
    lines = [
        '| model | MACs / sample | compile cold s (ours / hls4ml) | predict us / sample (ours / hls4ml) | '
        'memory added MB (ours / hls4ml) | compiler peak MB (ours / hls4ml) |',
        '|---|---|---|---|---|---|',
    ]
    by_model: dict[str, dict[str, dict]] = {}
    for row in rows:
        by_model.setdefault(row['model'], {})[row['impl']] = row
    for name, found in sorted(by_model.items(), key=lambda item: item[1].get('ours', {}).get('macs') or 0):
        ours, peer = found.get('ours', {}), found.get('hls4ml', {})
        cells = [
            ' / '.join(_growth_cell(row, key, scale, digits) for row in (ours, peer))
            for key, scale, digits in (
                ('compile_cold_s', 1.0, 2),
                ('predict_samples_per_s', None, 1),
                ('added_peak_mb', 1.0, 0),
                ('compiler_peak_mb', 1.0, 0),
            )
        ]
        lines.append(f'| {name} | {ours.get("macs", 0):,} | ' + ' | '.join(cells) + ' |')
    return lines


def _growth_cell(row: dict, key: str, scale: float | None, digits: int) -> str:
    value = row.get(key)
    if 'error' in row or value is None:
        return 'timeout' if 'timeout' in str(row.get('error', '')) else '-'
    return f'{1e6 / value:,.{digits}f}' if scale is None else f'{value * scale:,.{digits}f}'


def main() -> int:
    args = arguments()
    if args.mode == 'worker':
        print(json.dumps(worker(args.model, args.samples, Path(args.dir), args.label)))
        return 0
    impls = [('ours', args.ours_python)] + ([('hls4ml', args.peer_python)] if Path(args.peer_python).exists() else [])
    precompile(args.ours_python)
    peak, peak_how = peak_macs_per_second()
    imports = {label: import_seconds(python, label) for label, python in impls}
    rows, comparisons = previous_results(args)
    for name in args.models.split(','):
        runs: dict[str, list[dict]] = {label: [] for label, _ in impls}
        started = time.gmtime()
        for _ in range(args.repeat):
            for label, python in impls:
                runs[label].append(run_worker(python, label, name, args.samples, args.timeout))
        medians = {label: median_rows(found) for label, found in runs.items()}
        rows = [row for row in rows if row['model'] != name]
        rows += [{k: v for k, v in row.items() if k != 'predictions'} for row in medians.values()]
        comparisons = [item for item in comparisons if item['model'] != name]
        comparisons.append({**compare(medians['ours'], medians.get('hls4ml'), peak), **measured(args, started)})
        print(json.dumps(comparisons[-1]), flush=True)
        write_results(args, in_bench_order(rows), in_bench_order(comparisons), context(args, impls, peak_how, imports))
    return 0


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('mode', nargs='?', default='run', choices=['run', 'worker'])
    parser.add_argument('--peer-python', default=os.environ.get('HLS4ML_PEER_PYTHON') or str(PEER_DEFAULT))
    parser.add_argument('--ours-python', default=sys.executable)
    parser.add_argument('--models', default=','.join(MODELS))
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--samples', type=int, default=20000)
    parser.add_argument('--timeout', type=float, default=1200, help='seconds one worker may take (then recorded)')
    parser.add_argument('--update', action='store_true', help='keep the rows of models not measured in this run')
    parser.add_argument('--out', default=str(REPO / 'bench' / 'results' / 'perf.json'))
    parser.add_argument('--md', default=str(REPO / 'bench' / 'results' / 'perf.md'))
    parser.add_argument('--model', help=argparse.SUPPRESS)
    parser.add_argument('--dir', help=argparse.SUPPRESS)
    parser.add_argument('--label', help=argparse.SUPPRESS)
    return parser.parse_args()


def previous_results(args: argparse.Namespace) -> tuple[list[dict], list[dict]]:
    """With --update, the rows and comparisons of the last run (each model measured now replaces its own)."""
    if not args.update or not Path(args.out).exists():
        return [], []
    found = json.loads(Path(args.out).read_text())
    return found['rows'], found['comparisons']


def in_bench_order(items: list[dict]) -> list[dict]:
    order = list(MODELS)
    return sorted(items, key=lambda item: order.index(item['model']) if item['model'] in order else len(order))


def context(args: argparse.Namespace, impls: list, peak_how: str, imports: dict) -> dict:
    return {
        'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        'cpu': f'{platform.processor() or platform.machine()}, {os.cpu_count()} cores',
        'load': ' '.join(f'{value:.2f}' for value in os.getloadavg()),
        'peak_how': peak_how,
        'import_ours': imports['ours'],
        'import_peer': imports.get('hls4ml', float('nan')),
        'repeat': args.repeat,
        'samples': args.samples,
        'timeout_s': args.timeout,
    }


def measured(args: argparse.Namespace, started: time.struct_time) -> dict:
    """When and how one model was measured (a --update run keeps other models' rows of earlier runs)."""
    return {
        'measured': time.strftime('%Y-%m-%d %H:%M', started),
        'runs': args.repeat,
        'load_after': round(os.getloadavg()[0], 2),
    }


def write_results(args: argparse.Namespace, rows: list, comparisons: list, found: dict) -> None:
    """JSON and Markdown of the models measured so far (rewritten after each model)."""
    Path(args.out).write_text(json.dumps({'context': found, 'rows': rows, 'comparisons': comparisons}, indent=1))
    Path(args.md).write_text(markdown(rows, comparisons, found))


if __name__ == '__main__':
    sys.exit(main())
