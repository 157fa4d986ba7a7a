#!/usr/bin/env bash
# Regenerate the golden files of the emitted code (test/golden_projects/: every generated file of five
# small models on every backend and IO type; see test/unit/writer/test_golden_projects.py), then list
# what changed, for review. Regenerating twice changes nothing. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HLS4ML_UPDATE_GOLDEN=1 "${PYTHON:-.venv/bin/python}" -m pytest -q -p no:cacheprovider test/unit/writer "$@"
git status --short -- test/golden_projects
