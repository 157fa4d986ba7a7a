#!/usr/bin/env bash
# Create .venv (if missing) and install hls4ml with its test tools into it. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi
.venv/bin/pip install -q -e '.[test,keras,torch,onnx]'
