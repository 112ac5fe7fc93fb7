#!/usr/bin/env bash
# Can Qt open a window here? Checks, before the app starts, that there is a display and
# that the system libraries of Qt's platform plugin are installed; otherwise says what to
# install (apt and dnf) instead of letting Qt abort. Usage: check-display.sh PYTHON
# (the Python whose PySide6 will run the app). Exit 0 when the app can start, 1 if not.
# The checks and the library-to-package list are annotator.displaycheck, which
# `annotator gui` runs too; it needs only the standard library, so any Python 3 runs it
# from the checkout before anything is installed.
set -euo pipefail
PY=${1:-python3}
SRC="$(cd "$(dirname "$0")/.." && pwd)/src"
PYTHONPATH="$SRC${PYTHONPATH:+:$PYTHONPATH}" exec "$PY" -m annotator.displaycheck
