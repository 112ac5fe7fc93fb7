"""A package's history rows join the curator's chain when imported, in import order."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sync_support import ALPHA, CURATOR, complete

from annotator.services.history_audit import verify_history
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_package
from annotator.store.project import Project
from annotator.store.schema import HistoryEntry


def test_imported_rows_are_chained_after_the_curators_in_package_order(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(laptop, ALPHA, "T1")
    before = verify_history(curator)
    package = make_package(laptop, tmp_path / "alpha-1.annotator-package")
    import_package(curator, CURATOR, package.path)

    report = verify_history(curator)
    assert before.intact and report.intact
    with curator.read() as session:
        arrived = list(session.scalars(select(HistoryEntry).where(
            HistoryEntry.seq > before.head_seq).order_by(HistoryEntry.seq)))
    with laptop.read() as session:
        written = {str(e.id): e.at for e in session.scalars(select(HistoryEntry).where(
            HistoryEntry.actor == ALPHA, HistoryEntry.action != "unbundled"))}
    # Their ids and times are the laptop's, their places the curator's: after his head, in
    # the order the package lists them (oldest first).
    imported = [e for e in arrived if e.actor == ALPHA]
    assert imported and {str(e.id) for e in imported} <= set(written)
    assert [e.at for e in imported] == sorted(e.at for e in imported)
    assert [e.seq for e in arrived] == list(range(before.head_seq + 1, report.head_seq + 1))
    actions = [e.action for e in arrived]
    assert actions[len(imported):] == ["package_applied", "package_imported"]
