"""A bench child's peak memory is its own, not its parent's."""

from __future__ import annotations

import subprocess
import sys

PARENT = """
import subprocess, sys
held = bytearray(300 * 1024 * 1024)
held[::4096] = b"x" * len(held[::4096])  # resident, not only reserved
child = "from annotator.bench.rss import peak_rss_mb; print(peak_rss_mb())"
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                     check=True).stdout)
"""


def test_a_child_started_by_a_large_parent_reports_its_own_peak() -> None:
    # getrusage's ru_maxrss would report the parent's 300 MB here (Linux keeps it across
    # fork and exec); the child itself is a small interpreter.
    out = subprocess.run([sys.executable, "-c", PARENT], capture_output=True, text=True,
                         check=True).stdout
    assert 5 < float(out) < 150


def test_the_gui_figures_start_from_compiled_bytecode_as_an_install_does() -> None:
    """pip compiles a wheel's modules; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    compile every module at every start of the probe instead."""
    import importlib.util
    from pathlib import Path

    import annotator.errors
    from annotator.bench.run import compiled_bytecode

    source = Path(annotator.errors.__file__ or "")
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.unlink(missing_ok=True)
    assert compiled_bytecode()
    assert cached.exists() and cached.stat().st_mtime >= source.stat().st_mtime
