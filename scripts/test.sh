#!/usr/bin/env bash
# Install (scripts/setup_env.sh), lint, type-check, then run the whole test suite on 2 workers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup_env.sh
.venv/bin/ruff check hls4ml test bench examples
.venv/bin/ruff format --check hls4ml test bench examples
.venv/bin/mypy hls4ml/model
.venv/bin/pytest -n 2 "$@"
