#!/usr/bin/env bash
# Install annotator with its test dependencies into .venv and run lint, types and tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test]"
.venv/bin/ruff check src tests
.venv/bin/mypy
.venv/bin/lint-imports  # the layers of pyproject.toml [tool.importlinter]
QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest "$@"
