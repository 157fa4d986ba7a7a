"""The Verilog backend's gathers (Gather, Reduce sum/max/min/mean, Interpolate linear and bilinear, Resize)
and softmax 'argmax' without Verilator: PyTorch and Keras models converted for backend='Verilog', the
traced program (run by da4ml's interpreter) against the reference interpreter bit for bit over exact,
wrapping, saturating and unsigned types."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import hls4ml  # noqa: E402

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')

from verilog_programs import assert_program_matches_reference  # noqa: E402

from hls4ml.backends.verilog.project import render_rtl  # noqa: E402

functional = torch.nn.functional
PRECISIONS = ('fixed<8,3>', 'fixed<6,2>', 'fixed<7,3,RND,SAT>', 'ufixed<6,2>')
OPERATIONS = {
    'Gather': lambda x: x[:, :, 1:4:2],
    'Reduce': lambda x: torch.cat([x.sum(dim=2), torch.amax(x, dim=2), torch.amin(x, dim=2), x.mean(dim=2)], dim=1),
    'Interpolate': lambda x: functional.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False),
    'Resize2D': lambda x: functional.interpolate(x, scale_factor=2, mode='nearest'),
}


class Operation(torch.nn.Module):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return OPERATIONS[self.kind](x)


@pytest.mark.parametrize('kind', list(OPERATIONS))
def test_program_equals_the_reference(tmp_path, kind):
    x = np.random.default_rng(0).uniform(-4, 4, (300, 2, 3, 4))
    for precision in PRECISIONS:
        config = {'Model': {'Precision': precision, 'ReuseFactor': 1}, 'InputShape': (2, 3, 4)}
        model = hls4ml.converters.convert_from_pytorch_model(
            Operation(kind).eval(), hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Verilog'
        )
        assert kind in {layer.kind for layer in model.graph.layers.values()}
        assert_program_matches_reference(model, x)
    assert render_rtl(model.design).layer_costs


def test_softmax_argmax_is_the_first_maximum(tmp_path):
    import keras

    keras.utils.set_random_seed(4)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4), keras.layers.Softmax(name='choice')])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<5,2>')
    config['LayerName']['choice']['Implementation'] = 'argmax'
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        converted = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Verilog'
        )
    assert converted.graph.layers['choice'].attributes['implementation'] == 'argmax'
    x = np.random.default_rng(5).integers(-4, 4, (500, 6)) / 2  # coarse: many tied maxima
    assert_program_matches_reference(converted, x)


def embedding_model(tmp_path, index_precision: str):
    import keras

    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((5,), name='tokens'), keras.layers.Embedding(7, 3, name='embed')])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<8,3>')
    config['LayerName']['tokens']['Precision'] = index_precision
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Verilog'
    )


def test_embedding_reads_rows_and_zeros_outside_the_vocabulary(tmp_path):
    x = np.random.default_rng(6).integers(-3, 11, (300, 5)).astype(np.float64)  # -3..10 of a vocabulary of 7
    for precision in ('ap_int<5>', 'ap_uint<3>'):
        assert_program_matches_reference(embedding_model(tmp_path, precision), x)
    with pytest.raises(ValueError, match=r'embed.*index type int<13>.*at most 12 bits'):
        embedding_model(tmp_path, 'ap_int<13>')
