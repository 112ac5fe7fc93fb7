"""Names and helpers shared by the round-trip tests (fixtures live in conftest.py)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from annotator.domain.labels import LabelEdit
from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.users import add_user
from annotator.store.project import Project
from annotator.store.schema import Annotation, HistoryEntry, SyncPackage
from annotator.store.settings import PACKAGE_SECRET
from annotator.sync.container import manifest_checksum
from annotator.sync.signing import sign, signing_key
from factories import make_case, write_case_file

CURATOR = "Curator Cuthbert"
ALPHA = "Dr Alpha Annot"  # the annotator who works offline: T1 and T2
BETA = "Dr Beta Blind"  # T1 and T3
GAMMA = "Dr Gamma Ghost"  # T2 and T3
SENIOR = "Dr Senior Sage"

# For tests whose store work is the same on both back ends: run them on SQLite only.
sqlite_only = pytest.mark.parametrize("project_location", ["sqlite"], indirect=True)


def setup_curator(project: Project, drafts: Path) -> Project:
    """Users, cases T1..T3 and a reproducible assignment of two annotators per case."""
    add_user(project, "(setup)", CURATOR, ["curator"])
    for name in (ALPHA, BETA, GAMMA):
        add_user(project, CURATOR, name, ["annotator"])
    add_user(project, CURATOR, SENIOR, ["adjudicator"])
    path = write_case_file(drafts, [make_case(c) for c in ("T1", "T2", "T3")])
    assert all(o.status == "added" for o in import_cases(project, CURATOR, [path]).outcomes)
    report = assign(project, CURATOR, 2)
    assert sorted(report.assigned) == sorted(
        [("T1", ALPHA), ("T1", BETA), ("T2", GAMMA), ("T2", ALPHA), ("T3", BETA), ("T3", GAMMA)]
    )
    return project


def complete(project: Project, name: str, case_id: str) -> None:
    """Label a case like a physician (accept, change one importance) and submit it."""
    annotating.accept_suggestions(project, name, case_id)
    edit = LabelEdit("importance:Figure 3", {"value": "essential", "how": "set"})
    kinds.CASES.set_fields(project, name, case_id, [edit])
    kinds.CASES.submit(project, name, case_id)


def store_counts(project: Project) -> dict[str, object]:
    """What an import could change: history size, annotations as they stand, packages."""
    with project.tx() as session:
        annotations = sorted(
            (str(a.id), a.state, repr(sorted(a.labels.items())), a.needs_recheck, a.version)
            for a in session.scalars(select(Annotation))
        )
        return {
            "history": session.scalar(select(func.count()).select_from(HistoryEntry)),
            "packages": session.scalar(select(func.count()).select_from(SyncPackage)),
            "annotations": annotations,
        }


def own_history(project: Project, name: str) -> list[tuple[str, object, str, str | None]]:
    """The annotator's own entries on annotations: id, time, action, key (oldest first)."""
    with project.tx() as session:
        rows = session.scalars(
            select(HistoryEntry)
            .where(HistoryEntry.actor == name, HistoryEntry.annotation_id.is_not(None))
            .order_by(HistoryEntry.at, HistoryEntry.id)
        )
        return [(str(h.id), h.at, h.action, h.key) for h in rows]


Change = Callable[[dict[str, Any]], None]


def rewrite(
    source: Path,
    target: Path,
    *,
    manifest: Change | None = None,
    content: Change | None = None,
    reseal: bool = True,
    key: bytes | None = None,
) -> Path:
    """Copy a zip file changing the manifest or content; ``reseal`` recomputes the checksums.

    With ``key`` the manifest is signed again, as the laptop that holds the secret could.
    """
    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    head = json.loads(members.pop("manifest.json"))
    if content is not None:
        data = json.loads(members["content.json"])
        content(data)
        members["content.json"] = json.dumps(data).encode()
    if manifest is not None:
        manifest(head)
    if reseal:
        head["files"] = [
            {"path": n, "sha256": hashlib.sha256(d).hexdigest(), "size": len(d)}
            for n, d in sorted(members.items())
        ]
        if key is not None:
            head["signature"] = sign(key, head)
        head["checksum"] = manifest_checksum(head)
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("manifest.json", json.dumps(head))
        for name, data in members.items():
            archive.writestr(name, data)
    return target


def laptop_key(laptop: Project) -> bytes:
    return signing_key(str(laptop.setting(PACKAGE_SECRET)))
