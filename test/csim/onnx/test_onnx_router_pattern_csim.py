"""The router subgraph in an ONNX graph (torch.onnx.export of gate Linear -> softmax -> topk ->
optional division by the sum: Softmax -> TopK -> ReduceSum -> Div) converts to Router layers
(hls4ml/converters/onnx/router_pattern.py), compiled on Vitis in both IO types: predict() equals the
reference interpreter bit for bit; the logits are exact (coarse grid), so the chosen experts are
onnxruntime's (ties to the lower index in both) and the gates agree within the table tolerance.
Where the probabilities are read elsewhere too, the division by the computed sum is refused by name."""

from __future__ import annotations

import io

import numpy as np
import onnx
import pytest
import torch
import torch.nn.functional as F

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.onnx.parser import parse_onnx_model
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore::DeprecationWarning')]
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables of the gates
OUTPUTS = ['mixtral', 'mixtral_experts', 'switch', 'switch_experts']


class HandWritten(torch.nn.Module):
    """Mixtral (k = 2, renormalised) and Switch (k = 1, not renormalised); optionally the Mixtral
    probabilities as an output too."""

    def __init__(self, reuse: bool = False) -> None:
        super().__init__()
        self.mixtral, self.switch = (torch.nn.Linear(D, EXPERTS, bias=False) for _ in range(2))
        self.reuse = reuse
        rng = np.random.default_rng(7)
        with torch.no_grad():  # multiples of 1/8: exact logits in fixed<16,6>
            for gate in (self.mixtral, self.switch):
                gate.weight.copy_(torch.tensor(rng.integers(-8, 9, (EXPERTS, D)) / 8, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        probabilities = F.softmax(self.mixtral(x), dim=-1)
        weights, experts = torch.topk(probabilities, 2, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        switch, switch_experts = torch.topk(F.softmax(self.switch(x), dim=-1), 1)
        reused = (probabilities,) if self.reuse else ()
        return weights, experts, switch, switch_experts, *reused


def _exported(module: torch.nn.Module, opset: int) -> onnx.ModelProto:
    buffer = io.BytesIO()
    names = OUTPUTS + (['probabilities'] if module.reuse else [])
    dynamic = {name: {0: 'N'} for name in ['x', *names]}
    torch.onnx.export(
        module.eval(),
        (torch.zeros(1, D),),
        buffer,
        input_names=['x'],
        output_names=names,
        dynamic_axes=dynamic,
        dynamo=False,
        opset_version=opset,
    )
    return onnx.load_from_string(buffer.getvalue())


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(8)
    return np.concatenate([rng.integers(-32, 33, (40, D)) / 16, np.zeros((2, D))])  # zeros: all logits tie


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_exported_routers(tmp_path, io_type: str) -> None:
    import onnxruntime

    onnx_model = _exported(HandWritten(), opset=13)
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    model = hls4ml.converters.convert_from_onnx_model(
        onnx_model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    layers = [model.graph.producer(tensor) for tensor in model.graph.outputs]
    described = [(layer.kind, layer.attributes['k'], layer.attributes['renormalize']) for layer in layers]
    assert described == [('Router', 2, True)] * 2 + [('Router', 1, False)] * 2
    assert [layer.attributes['output'] for layer in layers] == ['weights', 'indices'] * 2
    x = _inputs()
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    session = onnxruntime.InferenceSession(onnx_model.SerializeToString())
    expected = session.run(OUTPUTS, {'x': x.astype(np.float32)})
    for index in (0, 2):
        np.testing.assert_array_equal(predicted[index + 1], expected[index + 1])  # the chosen experts
        np.testing.assert_allclose(predicted[index], expected[index], atol=TOLERANCE)


def test_opset_11_axes_attribute() -> None:
    graph, _ = parse_onnx_model(_exported(HandWritten(), opset=11))
    assert [layer.kind for layer in graph.layers.values()].count('Router') == 4


def test_refused_renormalisation_names_the_division() -> None:
    message = r"'/ReduceSum' \(ReduceSum\) and '/Div' \(Div\): divide the top-k values of '/TopK'.*a model output"
    with pytest.raises(ConversionError, match=message):
        parse_onnx_model(_exported(HandWritten(reuse=True), opset=13))
