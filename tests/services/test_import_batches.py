"""Import stores cases in batches (one transaction, one disk flush) yet each case whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from annotator.errors import StateError
from annotator.services import imports
from annotator.services.imports import import_cases
from annotator.store.schema import Case, CaseImage, CaseRevision, ImageBlob
from factories import make_case, write_case_file


def test_a_case_failing_half_way_leaves_no_trace_and_its_batch_goes_in(
    team: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_case_file(tmp_path / "d", [make_case(f"B{i}") for i in range(5)])
    real = imports._add_revision

    def failing(session: Any, project: Any, actor: str, case: Any, cand: Any,
                number: int, *rest: Any) -> Any:
        revision = real(session, project, actor, case, cand, number, *rest)  # rows written...
        if cand.case_id == "B2":
            raise StateError("B2: refused half-way")  # ...then the case fails
        return revision

    monkeypatch.setattr(imports, "_add_revision", failing)
    report = import_cases(team, "cu", [path])
    assert {o.case_id: o.status for o in report.outcomes} == {
        "B0": "added", "B1": "added", "B2": "refused", "B3": "added", "B4": "added"}
    with team.read() as session:
        ids = sorted(session.scalars(select(Case.case_id)))
        revisions = session.scalar(select(func.count()).select_from(CaseRevision))
    assert ids == ["B0", "B1", "B3", "B4"]
    assert revisions == 4


def test_a_refused_case_does_not_keep_the_image_rows_a_later_case_of_its_batch_needs(
    team: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # N0 is the first case to store these images; its savepoint rolls their blob rows back,
    # so N1 (same images, same batch) must insert them again, not take them as stored.
    path = write_case_file(tmp_path / "n", [make_case("N0"), make_case("N1")], shade=7)
    real = imports._add_revision

    def failing(session: Any, project: Any, actor: str, case: Any, cand: Any,
                number: int, *rest: Any) -> Any:
        revision = real(session, project, actor, case, cand, number, *rest)
        if cand.case_id == "N0":
            raise StateError("N0: refused half-way")
        return revision

    monkeypatch.setattr(imports, "_add_revision", failing)
    report = import_cases(team, "cu", [path])
    assert {o.case_id: o.status for o in report.outcomes} == {"N0": "refused", "N1": "added"}
    with team.read() as session:
        used = set(session.scalars(select(CaseImage.sha256)))
        blobs = set(session.scalars(select(ImageBlob.sha256)))
        assert used and used <= blobs
        for sha in used:
            assert team.images.get(session, sha)


def test_cases_in_several_batches_all_go_in(
    team: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotator.ingest import reader

    files = [write_case_file(tmp_path / f"d{i}", make_case(f"C{i}"), shade=i) for i in range(5)]
    defaults = dict(reader.iter_case_sources.__kwdefaults__ or {}, batch=2)
    monkeypatch.setattr(reader.iter_case_sources, "__kwdefaults__", defaults)
    parts = list(reader.iter_case_sources([tmp_path], seed="s"))
    assert [len(p.accepted) for p in parts] == [2, 2, 1]
    report = import_cases(team, "cu", files)
    assert [o.status for o in report.outcomes] == ["added"] * 5
    again = import_cases(team, "cu", files)
    assert [o.status for o in again.outcomes] == ["unchanged"] * 5
