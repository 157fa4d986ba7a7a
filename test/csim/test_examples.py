"""The worked examples of examples/ run end to end (smaller training budgets) and keep their promises:
the firmware classifies as well as the float model it was converted from."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.csim
EXAMPLES = Path(__file__).resolve().parents[2] / 'examples'


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f'example_{name}', EXAMPLES / f'{name}.py')
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_moe_block_with_a_top2_router(tmp_path, capsys) -> None:
    results = example('moe_digits').main(['--output-dir', str(tmp_path / 'moe'), '--epochs', '8', '--seeds', '2'])
    assert results['float accuracy'] > 0.85
    assert results['firmware accuracy'] >= results['float accuracy'] - 0.02
    assert results['same two experts'] >= 0.95 and results['largest gate difference'] < 0.02
    assert results['predict() = emulator'] == 1.0
    assert 'firmware accuracy' in capsys.readouterr().out


def test_resom_on_two_modalities(tmp_path, capsys) -> None:
    """The association beats either modality alone, and the firmware keeps the float model's accuracy."""
    results = example('resom_digits').main(['--output-dir', str(tmp_path / 'resom'), '--seeds', '3'])
    assert results['ReSOM, float'] > max(results['left map alone'], results['right map alone']) + 0.03
    assert results['ReSOM, firmware'] >= results['ReSOM, float'] - 0.03
    assert results['firmware = float'] >= 0.9 and results['predict() = emulator'] == 1.0
    assert 'ReSOM, firmware' in capsys.readouterr().out


def test_resom_on_three_modalities(tmp_path, capsys) -> None:
    """Three maps beat every map alone on held-out images (mean of two seeds), and the firmware keeps the
    float model's decisions."""
    pytest.importorskip('minisom')
    results = example('resom_three_modalities').main(['--output-dir', str(tmp_path / 'maps'), '--seeds', '2'])
    alone = max(results[f'map {index} alone'][0] for index in range(3))
    assert results['ReSOM 3 maps, float'][0] > alone
    assert results['ReSOM 3 maps, firmware'][0] >= results['ReSOM 3 maps, float'][0] - 0.02
    assert results['firmware = float'][0] >= 0.97
    assert 'ReSOM 3 maps, firmware' in capsys.readouterr().out


def test_hgq2_digits_is_bit_exact(tmp_path, capsys) -> None:
    """The HGQ2 model trained on digits converts with 0 differing outputs and keeps its accuracy."""
    pytest.importorskip('hgq')
    results = example('hgq2_digits').main(['--output-dir', str(tmp_path / 'hgq2'), '--epochs', '8'])
    assert results['outputs that differ'] == 0
    assert results['HGQ2 accuracy'] > 0.8
    assert results['firmware accuracy'] == results['HGQ2 accuracy']
    assert 'outputs that differ' in capsys.readouterr().out


def test_lstm_timeseries_keeps_the_float_decisions(tmp_path, capsys) -> None:
    """The LSTM anomaly detector learns the task, and the firmware keeps its accuracy and decisions."""
    results = example('lstm_timeseries').main(['--output-dir', str(tmp_path / 'lstm'), '--epochs', '8'])
    assert results['float accuracy'] > 0.85
    assert results['firmware accuracy'] >= results['float accuracy'] - 0.02
    assert results['same decision as float'] >= 0.97
    assert 'firmware accuracy' in capsys.readouterr().out


def test_keras_transformer_blocks(tmp_path, capsys) -> None:
    """The encoder (Embedding, MultiHeadAttention, LayerNormalization, MLP, pooling) and the ViT block
    with a token-choice (top-2) MoE MLP keep the float model's classes; the encoder learns its counting task."""
    results = example('transformer_keras').main(['--output-dir', str(tmp_path / 'transformer'), '--epochs', '20'])
    encoder, vit = results['encoder'], results['vit_moe']
    assert encoder['float accuracy'] > 0.9 and encoder['same class as float'] >= 0.97
    assert vit['float accuracy'] > 0.6 and vit['same class as float'] >= 0.95
    assert vit['firmware accuracy'] >= vit['float accuracy'] - 0.03
    assert 'ViT block with MoE MLP' in capsys.readouterr().out


def test_pytorch_transformer_encoder(tmp_path, capsys) -> None:
    """nn.Embedding, nn.MultiheadAttention, nn.LayerNorm, MLP, mean pooling: the firmware keeps the
    float model's classes and predict() equals the emulator."""
    results = example('transformer_pytorch').main(['--output-dir', str(tmp_path / 'encoder'), '--epochs', '20'])
    assert results['float accuracy'] > 0.9 and results['same class as float'] >= 0.97
    assert results['predict() = emulator'] == 1.0
    assert 'PyTorch encoder' in capsys.readouterr().out
