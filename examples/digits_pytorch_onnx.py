"""A PyTorch CNN on scikit-learn's 8x8 digits, converted twice: from PyTorch and from its ONNX export.

    .venv/bin/python examples/digits_pytorch_onnx.py [--output-dir DIR]

1. Trains a small channels-first CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Flatten, Linear) with
   PyTorch for a few epochs on the digits data set (offline, bundled with scikit-learn).
2. Converts the module with `convert_from_pytorch_model` and its `torch.onnx.export` with
   `convert_from_onnx_model`, both at ap_fixed<16,6> in io_stream, compiles the C-simulations and
   checks that the two firmware models agree bit for bit. (The export keeps the batch norm as its own
   node, `do_constant_folding=False`; folded into the convolution's weights it would round differently.)
3. Prints the accuracy of float PyTorch and of the firmware on the test images.
No network access; about 20 s on 2 cores.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import warnings

import numpy as np
import onnx
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import hls4ml

SEED = 7


class DigitsCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.norm(self.conv(x))))
        return self.fc(torch.flatten(x, 1))


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # (N, 1, 8, 8), channels first
    return train_test_split(images, digits.target, test_size=0.3, random_state=SEED)


def train(x: np.ndarray, y: np.ndarray, epochs: int = 15) -> DigitsCnn:
    torch.manual_seed(SEED)
    model = DigitsCnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    data, labels = torch.tensor(x), torch.tensor(y)
    for _ in range(epochs):
        for batch in torch.randperm(len(data)).split(64):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(data[batch]), labels[batch])
            loss.backward()
            optimizer.step()
    return model.eval()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='digits-hls', help='where the two projects are written')
    args = parser.parse_args()
    x_train, x_test, y_train, y_test = make_data()
    model = train(x_train, y_train)
    with torch.no_grad():
        float_accuracy = float((model(torch.tensor(x_test)).argmax(1).numpy() == y_test).mean())

    common = {'backend': 'Vitis', 'io_type': 'io_stream'}
    config = hls4ml.utils.config_from_pytorch_model(model, (1, 8, 8), default_precision='ap_fixed<16,6>')
    from_torch = hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=os.path.join(args.output_dir, 'pytorch'), **common
    )
    buffer = io.BytesIO()
    with warnings.catch_warnings():  # the TorchScript exporter announces its deprecation
        warnings.simplefilter('ignore', DeprecationWarning)
        torch.onnx.export(
            model, (torch.tensor(x_test[:1]),), buffer, dynamo=False, opset_version=13, do_constant_folding=False
        )
    exported = onnx.load_from_string(buffer.getvalue())
    config = hls4ml.utils.config_from_onnx_model(exported, granularity='model', default_precision='ap_fixed<16,6>')
    from_onnx = hls4ml.converters.convert_from_onnx_model(
        exported, hls_config=config, output_dir=os.path.join(args.output_dir, 'onnx'), **common
    )
    print(from_torch)
    torch_firmware = from_torch.predict(x_test)
    onnx_firmware = from_onnx.predict(x_test)
    same = bool(np.array_equal(torch_firmware, onnx_firmware))
    print(f'\nfloat PyTorch accuracy        {float_accuracy:.4f}')
    print(f'firmware (from PyTorch)       {float((torch_firmware.argmax(1) == y_test).mean()):.4f}')
    print(f'firmware (from ONNX export)   {float((onnx_firmware.argmax(1) == y_test).mean()):.4f}')
    print(f'PyTorch and ONNX firmware bit-identical: {same}')
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
