#!/usr/bin/env bash
# Install annotator into .venv, build the demo project once, and start the app on it.
# Before anything slow, and again before the window opens, check that Qt can show a window
# here (a display, and the system libraries of Qt's platform plugin): scripts/check-display.sh
# says what to install instead of a Qt abort. Each step says what it does; pip shows each
# package it fetches or installs (a first install takes a minute or two).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${ANNOTATOR_VENV:-.venv}
step() { echo "==> [$1/4] $2"; }
# pip's progress, without the dozens of "Requirement already satisfied" lines of a re-run
shown() { { grep --line-buffered -v '^Requirement already satisfied' || true; }; }

if [ "${QT_QPA_PLATFORM:-}" != offscreen ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  bash scripts/check-display.sh "$PY"  # says there is no display, and exits non-zero
fi
step 1 "Python environment in $VENV"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
step 2 "Installing annotator and its dependencies into $VENV (a minute or two the first time)"
"$VENV/bin/python" -m pip install --progress-bar on --upgrade pip 2>&1 | shown
"$VENV/bin/python" -m pip install --progress-bar on -e . 2>&1 | shown
bash scripts/check-display.sh "$VENV/bin/python"
PROJECT=${ANNOTATOR_DEMO_PROJECT:-$HOME/annotator-demo}
if [ -f "$PROJECT/project.sqlite" ]; then
  step 3 "The demo project is already in $PROJECT"
else
  step 3 "Building the demo project in $PROJECT (about 10 seconds)"
  "$VENV/bin/annotator" --project "$PROJECT" demo
fi
step 4 "Opening the app (for the command line: source $VENV/bin/activate)"
exec "$VENV/bin/annotator" --project "$PROJECT" --as "${ANNOTATOR_USER:-Dr Ada Rivera}" gui "$@"
