#!/usr/bin/env bash
# Einsum / EinsumDense predict throughput beside the published hls4ml 1.3.0 (bench/einsum_bench.py run
# by each interpreter in turn, interleaved); JSON lines into bench/results/einsum_peer.jsonl.
# Usage: bash bench/einsum_peer.sh [N_SAMPLES]   (the peer venv: ../shared/bench/setup_peer_venv.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ours="${OURS_PYTHON:-.venv/bin/python}"
peer="${PEER_PYTHON:-$HOME/.cache/hls4ml-peer/venv/bin/python}"
samples="${1:-20000}"
work="$(mktemp -d)"
out=bench/results/einsum_peer.jsonl
: > "$out"
for model in projections attention mha; do
  PYTHONPATH="$PWD" "$ours" bench/einsum_bench.py --model "$model" --out-dir "$work/ours" --n-samples "$samples" 2>/dev/null | tail -1 | tee -a "$out"
  (cd "$work" && "$peer" "$OLDPWD/bench/einsum_bench.py" --model "$model" --out-dir "$work/peer" --n-samples "$samples" 2>/dev/null | tail -1 | tee -a "$OLDPWD/$out")
done
rm -rf "$work"
