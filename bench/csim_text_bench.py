"""Cold C-simulation compile of the issue-22 table models with and without HLS4ML_CSIM_NO_TEXT (the
simulation build of the fixed-point and stream headers without <string>/<deque>), side by side in one
run: each repeat builds every variant from an empty cache, alternating, with the precompiled header off
(HLS4ML_CSIM_PCH=0) and ready (built first, then only the library is cold). Wall seconds and g++ CPU
seconds (children's user + system: comparable under load); medians. Usage: python bench/csim_text_bench.py
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

from perf_models import MODELS, build  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.csim import compiler, precompiled  # noqa: E402
from hls4ml.writer import write_project  # noqa: E402

TABLE = ['mlp_16-64-32-32-5', 'mlp_64-256-256-10', 'mlp_128-512-512-10', 'cnn3_32x32x3_stream']
FLAG = '-DHLS4ML_CSIM_NO_TEXT'


def sources_of(name: str, folder: Path):
    spec = MODELS[name]
    model = build(spec)
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder), backend='Vitis', io_type=spec.io_type
    )
    return write_project(hls_model.design).csim.sources


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cold_compile(sources, text: bool, pch: bool) -> tuple[float, float]:
    """(wall, g++ CPU) seconds of one compile from an empty cache (PCH built beforehand when `pch`)."""
    flags = tuple(flag for flag in compiler.CXX_FLAGS if flag != FLAG)
    compiler.CXX_FLAGS = flags if text else (*flags, FLAG)
    os.environ[precompiled.PCH_ENV] = '1' if pch else '0'
    with tempfile.TemporaryDirectory() as cache:
        os.environ['HLS4ML_CACHE_DIR'] = cache
        if pch:
            compiler.compile_library(sources, 'warmup')
            precompiled.reap(wait=True)
            shutil.rmtree(Path(cache) / 'csim' / 'lib')
            shutil.rmtree(Path(cache) / 'csim' / 'index')
        cpu, start = children_cpu(), time.perf_counter()
        compiler.compile_library(sources, 'bench')
        return time.perf_counter() - start, children_cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--models', default=','.join(TABLE))
    args = parser.parse_args()
    print(f'load: {os.getloadavg()}')
    print('| model | PCH | with text: wall / g++ CPU s | without: wall / g++ CPU s | CPU ratio |')
    print('| --- | --- | --- | --- | --- |')
    with tempfile.TemporaryDirectory() as work:
        for name in args.models.split(','):
            sources = sources_of(name, Path(work) / name)
            for pch in (False, True):
                runs: dict[bool, list] = {True: [], False: []}
                for _ in range(args.repeats):
                    for text in (True, False):
                        runs[text].append(cold_compile(sources, text, pch))
                before, after = (
                    [statistics.median(column) for column in zip(*runs[text], strict=True)] for text in (True, False)
                )
                print(
                    f'| {name} | {"ready" if pch else "off"} | {before[0]:.2f} / {before[1]:.2f} | '
                    f'{after[0]:.2f} / {after[1]:.2f} | {after[1] / before[1]:.2f} |',
                    flush=True,
                )
    print(f'load: {os.getloadavg()}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
