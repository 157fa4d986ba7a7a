"""examples/explore_jet_mlp.py runs end to end (a short training, a small test set, in this process)
and keeps its promises: a grid front, a greedy point within 1 % of the start, the figure saved."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.csim
EXAMPLE = Path(__file__).resolve().parents[3] / 'examples' / 'explore_jet_mlp.py'


def test_the_jet_mlp_sweep(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip('keras')
    pytest.importorskip('sklearn')
    pytest.importorskip('distributed', reason='dask.distributed is missing: pip install -e .[explore]')
    spec = importlib.util.spec_from_file_location('example_explore_jet_mlp', EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    arguments = ['--output-dir', str(tmp_path), '--client', 'serial', '--epochs', '3', '--samples', '600']
    results = module.main(arguments)
    grid, greedy = results['grid'], results['greedy']
    assert len(grid.points) == 40 and grid.points['error'].isna().all() and len(grid.front) >= 2
    start, chosen = greedy.points.iloc[0], greedy.points.loc[greedy.selected]
    assert chosen['accuracy'] >= start['accuracy'] - 0.01 and chosen['lut'] < start['lut']
    assert (tmp_path / 'front.png').stat().st_size > 10_000
    output = capsys.readouterr().out
    assert 'on the Pareto front of accuracy, lut, latency' in output and 'config for convert_from_keras_model' in output
