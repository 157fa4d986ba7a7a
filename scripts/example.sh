#!/usr/bin/env bash
# Install (scripts/setup_env.sh), then run the bundled example end to end.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup_env.sh
.venv/bin/python examples/jet_tagging_mlp.py "$@"
