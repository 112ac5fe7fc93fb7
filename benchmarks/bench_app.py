"""Benchmark (not a test): every figure of issue 14, as ``annotator bench`` prints it.

Run: ``python benchmarks/bench_app.py [--cases 1000] [--json] [--workdir DIR]``. Builds the
synthetic project once (``annotator bench-project``), then measures import, agreement,
export, the review queue, window/level and the GUI (offscreen, in a child process), each
against a baseline measured in the same run. See docs/performance.md.
"""

from __future__ import annotations

import sys

from annotator.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
