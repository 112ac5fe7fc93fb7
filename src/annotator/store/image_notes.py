"""An image's notes (attribution, what de-identification removed, its DICOM header), kept
once for all the images that share them and named by a digest of their content.

A release's images come from a few sources under a few licences and from a few scanners, so
the same notes repeat across thousands of ``case_images`` rows; each row names its notes by
:func:`digest` and :func:`keep` writes the ones the store does not hold yet.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy.orm import Session

from annotator.store.bulk import upsert
from annotator.store.schema import ImageNotes

Notes = tuple[dict[str, Any], list[Any], dict[str, Any]]  # attribution, removed, header


def digest(attribution: dict[str, Any], removed: list[Any], dicom_header: dict[str, Any]) -> str:
    """The notes' name: 128 bits of SHA-256 over their canonical JSON (the order of
    ``removed`` is kept: it is the order cleaning reports)."""
    text = json.dumps([attribution, removed, dicom_header], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def keep(session: Session, notes: Iterable[Notes]) -> None:
    """Store each of ``notes`` the store does not hold yet (inside the caller's transaction);
    a concurrent import of the same notes is not an error."""
    rows = {digest(*n): n for n in notes}
    if not rows:
        return
    conn = session.connection()
    statement = upsert(conn, ImageNotes.__table__).on_conflict_do_nothing(
        index_elements=["digest"])
    conn.execute(statement, [
        {"digest": d, "attribution": a, "removed": r, "dicom_header": h}
        for d, (a, r, h) in rows.items()
    ])
