#!/usr/bin/env bash
# Render docs/screenshots/ from the demo project: one per page at 1366x768 (the smallest
# laptop screen the app supports) and the annotate page and the desk in the dark theme.
# Usage: bash scripts/screenshots.sh [DEMO_PROJECT]  (default: a fresh demo in a temp folder)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin/annotator
DEMO=${1:-}
if [ -z "$DEMO" ]; then
    DEMO=$(mktemp -d)/demo
    "$BIN" --project "$DEMO" demo >/dev/null
fi
OUT=docs/screenshots
shot() {  # USER PAGE FILE [extra gui options]
    local user=$1 page=$2 file=$3
    shift 3
    "$BIN" --project "$DEMO" --as "$user" gui --page "$page" --size 1366x768 \
        --screenshot "$OUT/$file" "$@"
    echo "$OUT/$file"
}
shot "Sam Curator" desk desk.png
shot "Sam Curator" desk desk-dark.png --theme dark
shot "Dr Ada Rivera" annotate annotate.png
shot "Dr Ada Rivera" annotate annotate-dark.png --theme dark
shot "Dr Ada Rivera" sme sme.png
shot "Dr Ada Rivera" judge judge.png
shot "Dr Dana Weiss" review review.png
shot "Sam Curator" agreement agreement.png
shot "Sam Curator" export export.png
# The Quality view (a widget the curator's desk embeds), rendered on its own.
QT_QPA_PLATFORM=offscreen .venv/bin/python -m annotator.gui.quality.shot "$DEMO" "$OUT/quality.png" \
    --as "Sam Curator" --size 1366x768
