"""The exact internal types of SOM, ReSOM and SoftTopK (`KindRecord.exact_types`) under config: a Model
precision (the one type hls4ml 1.x users write for the whole model) leaves them as their precision rules set
them, bit for bit as with per-layer 'auto' types; a LayerName setting naming one is used, with an
`ExactTypeOverrideWarning` naming the layer, the type and its cost; a Model dict never reaches them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip('torch')

import hls4ml  # noqa: E402
from hls4ml.model.config import ExactTypeOverrideWarning  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.model.kinds import LAYER_KINDS, Kind  # noqa: E402
from hls4ml.nn.torch_moe import SparseSoftTopK  # noqa: E402
from hls4ml.nn.torch_resom import ReSOM  # noqa: E402
from hls4ml.nn.torch_som import SOM  # noqa: E402

SHAPES = [(6,), (5,)]
EXACT_KINDS = ('som', 'resom', 'stk')


class Maps(torch.nn.Module):
    """A ReSOM over (a, b), a SOM over a 10 x 10 grid (100 units: an index beyond fixed<10,4>) and a
    sparse soft top-k over a."""

    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(0)
        x, y = rng.random((200, 6)), rng.random((200, 5))
        self.resom = ReSOM(6, 5, (3, 3), (2, 3), beta_x=0.25, beta_y=0.25)
        self.resom.fit_maps(x, y, epochs=1, seed=1).fit_lateral(x, y)
        self.resom.label_units(labelled_x=(x[:50], (x[:50, 0] * 40).astype(int)))  # labels up to 39
        self.som = SOM(6, (10, 10), output='index').set_codebook(rng.random((100, 6)))
        self.stk = SparseSoftTopK(2)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.resom(a, b), self.som(a), self.stk(a)


@pytest.fixture(scope='module')
def module() -> Maps:
    return Maps().eval()


def _convert(module: Maps, config: dict, tmp_path) -> hls4ml.model.ModelGraph:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            module, hls_config={**config, 'InputShape': SHAPES}, output_dir=str(tmp_path / 'prj'), backend='Vitis'
        )
    hls_model.caught = [w for w in caught if issubclass(w.category, ExactTypeOverrideWarning)]
    return hls_model


def _types(hls_model) -> dict[str, dict[str, str]]:
    return {name: {var: str(t) for var, t in hls_model.graph.layers[name].types.items()} for name in EXACT_KINDS}


@pytest.mark.parametrize('precision', ['fixed<16,6>', 'fixed<10,4>'])
def test_model_precision_leaves_exact_types_as_the_rules_set_them(module, precision, tmp_path) -> None:
    plain = _convert(module, {'Model': {'Precision': precision}}, tmp_path / 'plain')
    kinds = {name: LAYER_KINDS[plain.graph.layers[name].kind] for name in EXACT_KINDS}
    auto = {name: {'Precision': dict.fromkeys(kind.exact_types, 'auto')} for name, kind in kinds.items()}
    reference = _convert(module, {'Model': {'Precision': precision}, 'LayerName': auto}, tmp_path / 'auto')
    assert _types(plain) == _types(reference) and not plain.caught
    types = plain.graph.layers['resom'].types
    assert str(types['activity']).startswith('ufixed<') and types['accum_x'].width > 16
    assert plain.graph.layers['som'].types['result'].max >= 99  # 100 units: no wrapped index
    rng = np.random.default_rng(2)
    samples = [rng.random((64, 6)), rng.random((64, 5))]
    for mine, theirs in zip(interpret(plain, samples)[0], interpret(reference, samples)[0], strict=True):
        np.testing.assert_array_equal(mine.value, theirs.value)


def test_layer_override_of_an_exact_type_is_used_and_warned(module, tmp_path) -> None:
    config = {'LayerName': {'resom': {'Precision': {'accum_x': 'ufixed<12,6>'}}, 'stk': {'result_t': 'ufixed<6,1>'}}}
    hls_model = _convert(module, config, tmp_path)
    assert str(hls_model.graph.layers['resom'].types['accum_x']) == 'ufixed<12,6>'
    assert str(hls_model.graph.layers['stk'].types['result']) == 'ufixed<6,1>'
    messages = sorted(str(w.message) for w in hls_model.caught)
    assert len(messages) == 2
    assert "'resom' (ReSOM): accum_x = ufixed<12,6>" in messages[0] and 'best-matching unit' in messages[0]
    assert "'stk' (SoftTopK): result = ufixed<6,1>" in messages[1] and 'round' in messages[1]


def test_layer_precision_string_and_model_dict_do_not_reach_exact_types(module, tmp_path) -> None:
    config = {
        'Model': {'Precision': {'default': 'fixed<16,6>', 'accum': 'fixed<8,4>', 'result': 'fixed<8,4>'}},
        'LayerName': {'som': {'Precision': 'fixed<12,4>'}},
    }
    hls_model = _convert(module, config, tmp_path)
    som = hls_model.graph.layers['som'].types
    assert som['accum'].width > 16 and str(som['codebook']) == 'fixed<12,4>' and som['result'].max >= 99
    [message] = [str(w.message) for w in hls_model.caught]  # the string's reach is said, once
    assert "['Precision'] = 'fixed<12,4>' does not reach the exact types accum, table, label, result" in message


def test_every_exact_type_names_its_cost() -> None:
    for kind in (Kind.SOM, Kind.RESOM, Kind.SOFT_TOPK):
        assert kind.exact_types and all(len(cost) > 20 for cost in kind.exact_types.values())
    for kind in LAYER_KINDS.values():
        assert set(kind.exact_types) <= set(kind.type_defaults)
