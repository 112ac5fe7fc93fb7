#!/usr/bin/env bash
# Install annotator into .venv, build the demo project once, and start the app on it.
# Before anything slow, and again before the window opens, check that Qt can show a window
# here (a display, and the system libraries of Qt's platform plugin): scripts/check-display.sh
# says what to install instead of a Qt abort.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ "${QT_QPA_PLATFORM:-}" != offscreen ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  bash scripts/check-display.sh "$PY"  # says there is no display, and exits non-zero
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
bash scripts/check-display.sh .venv/bin/python
PROJECT=${ANNOTATOR_DEMO_PROJECT:-$HOME/annotator-demo}
[ -f "$PROJECT/project.sqlite" ] || .venv/bin/annotator --project "$PROJECT" demo
exec .venv/bin/annotator --project "$PROJECT" --as "${ANNOTATOR_USER:-Dr Ada Rivera}" gui "$@"
