"""Who is at the keyboard, where they left off, and how long they actively worked.

Where things are kept, and why:

- **Remembered identity**: a small file per machine (``identity.json`` in the user's
  configuration folder, keyed by project id). On a shared laptop the app starts as the last
  person who chose themselves there; a PostgreSQL team store is shared by many laptops, so
  the identity must not live in the project.
- **Resume state** (last case, exam, viewer state): a project setting per user
  (``resume:<name>``). It travels with the project (backups, team store), so a physician who
  moves to another laptop on the same team store continues where they stopped.
- **Filters** of the case list and the SME and judge queues: a project setting per list
  and user (``filters:<list>/<name>``), like the resume state, so they are kept across
  restarts and follow the physician to another laptop on the same team store.
- **Active time**: measured from input events by :class:`ActiveClock` and added to the
  annotation's ``active_seconds`` label in modest increments (the GUI flushes about once a
  minute and on leaving a case), so it is history-logged like any edit.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from annotator.domain.labels import LabelEdit
from annotator.domain.states import AnnotationState
from annotator.errors import StateError, ValidationError
from annotator.services.rating.engine import SetResult
from annotator.services.review.kind import CASES  # not services.kinds: judge, SME, stats
from annotator.store.project import Project
from annotator.store.settings import RESUME, VIEW_FILTERS

IDENTITY_FILE = "identity.json"
IDLE_LIMIT_SECONDS = 60.0  # a gap longer than this between inputs is time away, not work


def config_dir() -> Path:
    """The per-user configuration folder of the app (created on demand by writers)."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "annotator"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "annotator"


def cache_dir() -> Path:
    """The per-user cache folder (thumbnails); safe to delete at any time."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "annotator" / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "annotator"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)


def remembered_identity(project: Project, folder: Path | None = None) -> str | None:
    """The person who last chose themselves for this project on this machine, if any."""
    entry = _read_json((folder or config_dir()) / IDENTITY_FILE).get(project.project_id)
    return str(entry) if isinstance(entry, str) and entry else None


def remember_identity(project: Project, name: str, folder: Path | None = None) -> None:
    """Remember ``name`` as this machine's identity for this project (atomic write)."""
    path = (folder or config_dir()) / IDENTITY_FILE
    data = _read_json(path)
    data[project.project_id] = name
    _write_json(path, data)


def load_resume(project: Project, user: str) -> dict[str, Any]:
    """Where ``user`` left off: ``case_id``, ``exam`` and ``viewer`` (may be empty)."""
    value = project.setting(RESUME, user)
    return dict(value) if isinstance(value, dict) else {}


def save_resume(project: Project, user: str, state: dict[str, Any]) -> None:
    """Store where ``user`` is now (one small setting row, overwritten)."""
    project.set_setting(RESUME, dict(state), user)


FILTER_LISTS = ("cases", "sme", "judge")  # the lists whose filters are kept


def _filters_key(view: str, user: str) -> str:
    if view not in FILTER_LISTS:
        raise ValidationError(f"no list {view!r} keeps filters (one of {', '.join(FILTER_LISTS)})")
    return f"{view}/{user}"


def load_filters(project: Project, user: str, view: str) -> dict[str, str]:
    """The filters ``user`` last chose on the list ``view`` (filter id -> value)."""
    value = project.setting(VIEW_FILTERS, _filters_key(view, user))
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items() if isinstance(v, str)}


def save_filters(project: Project, user: str, view: str, filters: dict[str, str]) -> None:
    """Keep the filters ``user`` chose on ``view`` (one small setting row, overwritten)."""
    key = _filters_key(view, user)
    if load_filters(project, user, view) != filters:
        project.set_setting(VIEW_FILTERS, dict(filters), key)


class ActiveClock:
    """Active working time from input timestamps (seconds, e.g. ``time.monotonic()``).

    The time between two inputs counts when the gap is at most ``idle_limit``. A longer gap
    counts nothing: the physician was away (a ward call), and the report is working time.
    """

    def __init__(self, idle_limit: float = IDLE_LIMIT_SECONDS) -> None:
        self.idle_limit = idle_limit
        self._last: float | None = None
        self._pending = 0.0

    def touch(self, now: float) -> None:
        """Record an input (key, click, wheel, drag) at ``now``."""
        if self._last is not None:
            gap = now - self._last
            if 0 < gap <= self.idle_limit:
                self._pending += gap
        self._last = now

    def pause(self) -> None:
        """Forget the last input (the window lost focus or the case changed)."""
        self._last = None

    @property
    def pending(self) -> float:
        """Seconds measured and not yet taken."""
        return self._pending

    def take(self) -> float:
        """Return the measured seconds and start counting from zero."""
        seconds, self._pending = self._pending, 0.0
        return seconds


def add_active_time(
    project: Project, annotator: str, case_id: str, seconds: float
) -> SetResult | None:
    """Add measured seconds to the case's ``active_seconds``; None when nothing was stored.

    A submitted annotation is not edited (the time spent re-reading it is not work on it).
    """
    if seconds <= 0:
        return None
    # One transaction: the total read and written together (two windows adding time at
    # once add both), and nothing read again by the caller (``after`` holds the total).
    with project.tx() as session:
        loaded = CASES.load(session, annotator, case_id)
        if loaded.work.state == AnnotationState.SUBMITTED.value:
            return None
        before = loaded.work.values.get("active_seconds")
        total = round((before if isinstance(before, int | float) else 0.0) + seconds, 1)
        try:
            return CASES.set_in(session, annotator, loaded, [LabelEdit("active_seconds", total)],
                                action="active_time")
        except StateError:  # the case is closed to edits (excluded): time is not kept
            return None
