"""Staging folders: build next to the target, rename into place, and clean up after a kill.

A folder that is built piece by piece (a release, the demo project) is built in a hidden
sibling named ``.<target>.<kind>-<pid>-<random>`` and renamed into place at the end, so the
target is either absent or complete. A process killed half-way leaves only its staging
folder; the next run for the same target removes every staging folder whose process is gone.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path


def staging_dir(target: Path, kind: str) -> Path:
    """A new, empty staging folder beside ``target`` (stale ones of dead processes removed)."""
    clean_stale(target, kind)
    target.parent.mkdir(parents=True, exist_ok=True)
    folder = target.parent / f".{target.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"
    folder.mkdir()
    return folder


def clean_stale(target: Path, kind: str) -> list[Path]:
    """Remove staging folders for ``target`` left by processes that no longer run."""
    removed: list[Path] = []
    prefix = f".{target.name}.{kind}-"
    if not target.parent.is_dir():
        return removed
    for entry in target.parent.iterdir():
        if not entry.name.startswith(prefix) or not entry.is_dir() or entry.is_symlink():
            continue
        pid_text = entry.name[len(prefix):].split("-", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # somebody else's process: alive
        return True
    return True


def move_into_place(staging: Path, target: Path) -> None:
    """Rename ``staging`` to ``target`` (absent or an empty folder); OSError if taken meanwhile."""
    if target.is_dir() and not any(target.iterdir()):
        target.rmdir()
    os.rename(staging, target)  # fails when another process put a folder there first
