#!/usr/bin/env bash
# Side-by-side with the published hls4ml 1.3.0 on the PyTorch and ONNX frontends (the same MLP through
# torch.fx and through torch.onnx.export + the qonnx clean-up); results in bench/results/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash ../shared/bench/peer_compare.sh --python-ours .venv/bin/python --models torch_mlp,onnx_mlp \
  --repeat "${REPEAT:-2}" --md bench/results/peer_frontends.md --out bench/results/peer_frontends.json "$@"
