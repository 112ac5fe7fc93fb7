"""The user's own data folder, without Qt: ``$XDG_DATA_HOME/annotator`` or
``~/.local/share/annotator`` (the XDG base directory rule, as platformdirs applies it on Linux).

Internal-error logs and the demo project built without ``--project`` live here.
"""

from __future__ import annotations

import os
from pathlib import Path


def user_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "annotator"


def user_cache_dir() -> Path:
    """Caches that only save time: ``$XDG_CACHE_HOME/annotator`` or ``~/.cache/annotator``;
    ``$ANNOTATOR_CACHE`` names another folder (``off``: no cache)."""
    configured = os.environ.get("ANNOTATOR_CACHE", "").strip()
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "annotator"
