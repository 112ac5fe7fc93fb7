"""scripts/run-demo.sh says what it is doing while it installs (it used to be silent for over
a minute): a numbered line per step, and pip's own progress. A stand-in Python plays venv, pip
and the app, so the test installs nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "run-demo.sh"

FAKE_PYTHON = r"""#!/usr/bin/env bash
# Logs every call; "-m venv DIR" makes DIR/bin with this script as python and a fake annotator.
echo "python $*" >> "$LOG"
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
  printf '#!/usr/bin/env bash\necho "annotator $*" >> "$LOG"\n' > "$3/bin/annotator"
  chmod +x "$3/bin/annotator"
elif [ "$1 $2" = "-m pip" ]; then
  echo "Requirement already satisfied: numpy in somewhere"
  echo "Collecting PySide6-Essentials>=6.6"
  echo "Successfully installed annotator-0.1.0"
fi
"""


def test_the_demo_script_shows_each_step_and_pips_progress(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    log = tmp_path / "calls.log"
    env = {**os.environ, "PYTHON": str(fake), "ANNOTATOR_VENV": str(tmp_path / "venv"),
           "ANNOTATOR_DEMO_PROJECT": str(tmp_path / "demo"), "QT_QPA_PLATFORM": "offscreen",
           "LOG": str(log)}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    steps = [line for line in done.stdout.splitlines() if line.startswith("==> ")]
    assert [s[:10] for s in steps] == ["==> [1/4] ", "==> [2/4] ", "==> [3/4] ", "==> [4/4] "]
    assert "Installing annotator and its dependencies" in steps[1]
    assert "Collecting PySide6-Essentials>=6.6" in done.stdout  # pip is not silenced
    assert "Requirement already satisfied" not in done.stdout
    assert "source" in steps[3] and "/bin/activate" in steps[3]
    calls = log.read_text().splitlines()
    assert not [c for c in calls if " pip " in c and " -q" in c]
    assert calls[-2:] == [f"annotator --project {tmp_path / 'demo'} demo",
                          f"annotator --project {tmp_path / 'demo'} --as Dr Ada Rivera gui"]
