#!/usr/bin/env bash
# Create .venv (if missing) and install hls4ml with its test tools into it. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi
.venv/bin/pip install -q -e '.[test,keras,torch,onnx,plot,hgq,explore,rtl,da]'
# Brevitas (quantization-aware training exported to QONNX) for one end-to-end test. --no-deps: its
# requirements are met by the packages above, and pip must never be asked to pick a torch of its own.
.venv/bin/pip install -q --no-deps brevitas==0.13.4 dependencies==2.0.1 onnxoptimizer==0.4.2
# The writer's templates compiled once, as pip compiles the .py files (hls4ml/writer/templates.py): the first
# conversion then reads them instead of compiling them.
.venv/bin/python -c 'from hls4ml.writer.templates import precompile_templates as p; p(["vitis", "oneapi", "catapult"])'
# The kernel library's precompiled header for each backend, beside the package (hls4ml/csim/precompiled.py): a
# compile with an empty cache then parses no kernel header. Without g++ (or with HLS4ML_CSIM_PCH=0) nothing is built.
.venv/bin/python -c 'from hls4ml.writer import precompile_headers as p; p()' || echo "precompiled headers not built: compiles parse the headers themselves" >&2
# Verilator (co-simulation) and Yosys (synthesis) for the Verilog backend (docs/verilog.md); a machine
# that has both skips this. Without them (no apt, not root) the Verilog backend's tests skip, saying so.
if ! command -v verilator >/dev/null || ! command -v yosys >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q verilator yosys
  else
    echo "verilator or yosys missing and apt-get unavailable: the Verilog backend's tests will skip" >&2
  fi
fi
