#!/usr/bin/env bash
# Side-by-side with the published hls4ml 1.3.0 on the models this version supports; results in bench/results/.
# The first run creates the peer venv (~2.6 GB, a few minutes). Quote the ratios of one run: the machine is noisy.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash ../shared/bench/peer_compare.sh --python-ours .venv/bin/python --models mlp_latency,mlp_resource_rf4 \
  --repeat "${REPEAT:-2}" --md bench/results/peer_mlp.md --out bench/results/peer_mlp.json "$@"
