#!/usr/bin/env bash
# Install annotator into .venv, build the demo project once, and start the app on it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
PROJECT=${ANNOTATOR_DEMO_PROJECT:-$HOME/annotator-demo}
[ -f "$PROJECT/project.sqlite" ] || .venv/bin/annotator --project "$PROJECT" demo
exec .venv/bin/annotator --project "$PROJECT" --as "${ANNOTATOR_USER:-Dr Ada Rivera}" gui "$@"
