"""The agreement report cached by a hash of its inputs (issue 14: < 0.3 s when unchanged).

The key hashes what identifies everything the report is computed from without reading every
case (the cases the writers marked stale since the statistics were last brought up to date,
with their tokens, the XOR of every case's statistics key before that, and the people: see
``services.agreement.report_inputs``), the report options, and the source of the code that
computes it, so a changed label, option or statistic never serves a stale report. The cache
is a project setting (one row per kind of report), so it lives in the store on both back
ends.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from annotator.store.project import Project
from annotator.store.settings import AGREEMENT_CACHE, clear_family, get_setting

_CODE = ("agreement", "export/agreement.py", "services/agreement.py")


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """The source of the agreement code, read once: a running process's code is fixed."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for part in _CODE:
        path = root / part
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(source.name.encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()


def input_key(kind: str, inputs: Any, options: Any = None) -> str:
    """SHA-256 of the report's inputs (JSON-able values; ``options`` a dataclass or None)."""
    payload = {
        "kind": kind,
        "inputs": inputs,
        "options": dataclasses.asdict(options) if options is not None else None,
        "code": _code_fingerprint(),
    }
    text = json.dumps(payload, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lookup(session: Session, kind: str, key: str) -> dict[str, Any] | None:
    """The report stored under ``key`` (in the caller's transaction), else None."""
    stored = get_setting(session, AGREEMENT_CACHE, kind)
    if isinstance(stored, dict) and stored.get("key") == key:
        report: dict[str, Any] = stored["report"]
        return report
    return None


def store(project: Project, kind: str, key: str, report: dict[str, Any]) -> dict[str, Any]:
    """Keep ``report`` under ``key``; returns it as stored (JSON values, like a hit)."""
    plain: dict[str, Any] = json.loads(json.dumps(report, default=_plain))
    project.set_setting(AGREEMENT_CACHE, {"key": key, "report": plain}, kind)
    return plain


def forget(project: Project) -> None:
    """Drop every cached report (the bench measures the cold path with this)."""
    with project.tx() as session:
        clear_family(session, AGREEMENT_CACHE)


def _plain(value: Any) -> Any:
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return item()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)
