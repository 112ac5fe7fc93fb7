"""Every reader of outside files, fuzzed in a child process with a memory cap (issue 23).

The targets are in ``fuzz_readers.py``: the case importer, bundles, packages, SME YAML and
items, judged runs, physician score CSVs and ``validate``, each read without a store. The
child caps its address space at 300 MiB above what its libraries take (resource.setrlimit),
hypothesis gives each example a deadline, and the child has a timeout, so a traceback, a
MemoryError or a hang each fail the test with the falsifying example in its output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz_readers import TARGETS

MEMORY_MIB = 300


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_reader_answers_every_hostile_file_within_bounds(target: str, tmp_path: Path) -> None:
    script = Path(__file__).with_name("fuzz_readers.py")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run([sys.executable, str(script), target, str(MEMORY_MIB)],
                          capture_output=True, text=True, timeout=180, env=env, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert done.stdout.strip() == f"fuzzed {target}"
