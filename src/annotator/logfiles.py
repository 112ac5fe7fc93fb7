"""Where an internal error's traceback goes: one new file per run in the user's data folder.

A fixed file in the shared temp folder was overwritten by every later error (and readable by
other users of the machine); each run now writes its own file, private to the user, under
``$XDG_DATA_HOME/annotator/logs`` (``~/.local/share/annotator/logs`` by default).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from annotator.userdirs import user_data_dir


def logs_dir() -> Path:
    return user_data_dir() / "logs"


def write_error_log(text: str) -> Path:
    """Write ``text`` to a new file (mode 0600) named by time and process id; return it."""
    folder = logs_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = folder / f"error-{stamp}-{os.getpid()}.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    # backslashreplace: a traceback quoting a lone surrogate from a file must still be written
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(text)
    return path
