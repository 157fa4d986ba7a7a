"""examples/sparse_moe_digits.py end to end with one seed and a short training: the firmware classifies
as the float SparseMoE does and routes every image to the same two experts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.csim
EXAMPLE = Path(__file__).resolve().parents[2] / 'examples' / 'sparse_moe_digits.py'


def test_sparse_moe_digits(tmp_path, capsys) -> None:
    spec = importlib.util.spec_from_file_location('example_sparse_moe_digits', EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    results = module.main(['--output-dir', str(tmp_path / 'moe'), '--seeds', '1', '--epochs', '8'])
    assert results['float accuracy'] > 0.85
    assert results['firmware accuracy'] >= results['float accuracy'] - 0.02
    assert results['same two experts'] >= 0.95
    assert 'expert multipliers instead of' in capsys.readouterr().out
