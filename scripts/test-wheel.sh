#!/usr/bin/env bash
# Build the wheel, install it into a clean venv outside the source tree, and run the app
# from there: the demo project, gui without a display, an import's report, status, and an
# offscreen screenshot. This catches files the
# wheel leaves out (package data), which an editable install in the checkout hides.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}  # any Python 3.11+ with pip; scripts/test.sh makes .venv
[ -x "$PY" ] || PY=python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/annotator-wheel-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Build from a copy of the tree: setuptools reuses ./build, where files removed from the
# package may linger and slip into the wheel.
mkdir "$WORK/src"
tar -C "$ROOT" --exclude=./.venv --exclude=./build --exclude=./dist --exclude='*.egg-info' \
  --exclude=__pycache__ --exclude=.git -cf - . | tar -C "$WORK/src" -xf -
"$PY" -m pip wheel -q --no-deps -w "$WORK/wheel" "$WORK/src"
WHEEL=$(ls "$WORK"/wheel/annotator-*.whl)

"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q "$WHEEL"  # dependencies from the pip cache

cd "$WORK"  # nothing of the checkout is importable or readable from here
export QT_QPA_PLATFORM=offscreen
unset PYTHONPATH ANNOTATOR_USER
BIN="$WORK/venv/bin"
"$BIN/python" - "$ROOT" <<'PY'
import sys
from pathlib import Path

import annotator

where = Path(annotator.__file__).resolve()
assert not where.is_relative_to(Path(sys.argv[1]).resolve()), f"imported from the checkout: {where}"
PY
# The first hour, from an empty folder: `demo` without --project builds in the user's data
# folder (a home of its own here) and says where; `gui` without a display is one clear
# message and a non-zero exit, not a Qt abort; importing the demo's drafts prints at most a
# line per case and the closing summary.
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/home/.local/share"
mkdir -p "$HOME" "$WORK/empty"
(cd "$WORK/empty" && "$BIN/annotator" demo) > "$WORK/demo.out"
DEMO="$XDG_DATA_HOME/annotator/demo"
grep -qF "annotator --project $DEMO gui" "$WORK/demo.out" || { cat "$WORK/demo.out"; exit 1; }
[ -f "$DEMO/project.sqlite" ] || { echo "demo: no project in $DEMO" >&2; exit 1; }
set +e
(cd "$WORK/empty" && env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM \
  "$BIN/annotator" --project "$DEMO" gui) > "$WORK/gui.out" 2> "$WORK/gui.err"
code=$?
set -e
if [ "$code" = 0 ] || [ "$code" -ge 128 ] || ! grep -q "^annotator: no display" "$WORK/gui.err" \
   || [ -s "$WORK/gui.out" ] || grep -q "qt.qpa" "$WORK/gui.err"; then
  echo "gui without a display: exit $code" >&2; cat "$WORK/gui.out" "$WORK/gui.err" >&2; exit 1
fi
echo "gui without a display: exit $code, $(head -1 "$WORK/gui.err")"
DRAFTS=$("$BIN/python" -c 'from annotator.resources import demo_cases_dir; print(demo_cases_dir())')
"$BIN/annotator" --project "$WORK/drafts" users add Kim --role curator > /dev/null
"$BIN/annotator" --project "$WORK/drafts" import "$DRAFTS" > "$WORK/import.out"
cases=$(ls "$DRAFTS"/*.json | wc -l)
lines=$(wc -l < "$WORK/import.out")
if [ "$lines" -gt $((cases + 1)) ]; then
  echo "import printed $lines lines for $cases cases" >&2; cat "$WORK/import.out" >&2; exit 1
fi
echo "import: $lines lines for $cases cases: $(tail -1 "$WORK/import.out")"

"$BIN/annotator" --project "$DEMO" status --json > "$WORK/status.json"
"$BIN/python" - "$WORK/status.json" <<'PY'
import json
import sys

status = json.load(open(sys.argv[1], encoding="utf-8"))
assert status, "status --json printed nothing"
print("status:", json.dumps(status, sort_keys=True))
PY
"$BIN/annotator" --project "$DEMO" gui --screenshot "$WORK/out.png" --size 1366x768
"$BIN/python" - "$WORK/out.png" <<'PY'
import sys

from PIL import Image, ImageStat

image = Image.open(sys.argv[1])
assert image.size == (1366, 768), image.size
spread = ImageStat.Stat(image.convert("L")).stddev[0]
assert spread > 10, f"the screenshot is blank (grey-level spread {spread:.1f})"
print(f"screenshot {image.size[0]}x{image.size[1]}, grey-level spread {spread:.1f}")
PY
echo "wheel OK: $(basename "$WHEEL") installed and ran outside the source tree"
