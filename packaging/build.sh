#!/usr/bin/env bash
# Build the one-folder desktop app into dist/annotator/ with PyInstaller (installed into
# .venv here, not a runtime dependency). Run: bash packaging/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q -e .
.venv/bin/python -m pip install -q "pyinstaller>=6.10"
.venv/bin/pyinstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/annotator.spec
cp packaging/annotator.desktop packaging/annotator-desktop src/annotator/assets/icons/annotator.svg dist/annotator/
echo "built dist/annotator/annotator (see packaging/README.md to install the desktop entry)"
