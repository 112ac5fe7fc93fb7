"""The desk's snapshot: each figure equals the value the matching command prints as JSON on
the demo project (``status``, ``review --status``, ``roundtrip-status``, ``agreement``,
``sme-results``); the figures no other command prints are checked against the store's rows
read here independently; ``desk --json`` is the snapshot the page shows."""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.cli import main
from annotator.errors import PermissionDenied
from annotator.services import kinds
from annotator.services.agreement import agreement_report
from annotator.services.demo import CURATOR, PHYSICIANS, SENIOR, _label_fully, build_demo
from annotator.services.desk import INTERVALS_PENDING, annotator_rows, desk_snapshot
from annotator.services.judging import scoring as judge_scoring
from annotator.services.sme import review as sme_review
from annotator.store.project import Project, open_project
from annotator.store.schema import Annotation, Case, User, utcnow
from annotator.store.settings import STUCK_AFTER_DAYS


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo") / "p"
    build_demo(str(folder))
    return folder


@pytest.fixture
def demo(demo_dir: Path) -> Any:
    project = open_project(demo_dir)
    yield project
    project.close()


def _json(capsys: pytest.CaptureFixture[str], demo_dir: Path, *argv: str,
          who: str = CURATOR) -> Any:
    code = main(["--project", str(demo_dir), "--as", who, *argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_counts_equal_status_and_review_status(demo: Project, demo_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    snap = desk_snapshot(demo, CURATOR)
    status = _json(capsys, demo_dir, "status")
    review = _json(capsys, demo_dir, "review", "--status")
    assert snap.status == status
    assert snap.cases_by_state == {k: status[k] for k in
                                   ("annotating", "in_review", "green_lit", "excluded")}
    assert sum(snap.cases_by_state.values()) == status["cases"]
    assert snap.needs_fix == status["needs_fix"] > 0
    queues = {q.key: q for q in snap.conflicts}
    assert queues["cases"].open_conflicts == review["conflicts_open"] > 0
    assert queues["cases"].page == "review"
    for key, page in (("sme_verdicts", "sme"), ("judge_scoring", "judge")):
        assert queues[key].items == review["other_queues"][key]["items"] > 0
        assert queues[key].open_conflicts == review["other_queues"][key]["open_conflicts"]
        assert queues[key].page == page
    open_cases = {i["case_id"] for i in _json(capsys, demo_dir, "review", "--list")
                  if i["state"] == "open"}
    assert queues["cases"].items == len(open_cases)


def test_annotators_equal_agreement_and_roundtrip(demo: Project, demo_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    snap = desk_snapshot(demo, CURATOR)
    agreement = {a["name"]: a for a in _json(capsys, demo_dir, "agreement")["annotators"]}
    trips = {r["annotator"]: r for r in _json(capsys, demo_dir, "roundtrip-status")}
    assert [a.name for a in snap.annotators] == sorted(PHYSICIANS)
    for row in snap.annotators:
        assert row.assigned == agreement[row.name]["assigned"] == trips[row.name]["assigned"]
        assert row.submitted == agreement[row.name]["submitted"]
        assert row.in_progress + row.not_started == agreement[row.name]["open"]
        assert row.bundled == trips[row.name]["bundled"]
        assert row.returned == trips[row.name]["returned"]
    assert any(r.bundled for r in snap.annotators) and any(r.returned for r in snap.annotators)


def _approx(value: float | None) -> Any:
    return None if value is None else pytest.approx(value, rel=1e-9)


def test_agreement_headline_equals_agreement_json(demo: Project, demo_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    report = _json(capsys, demo_dir, "agreement")  # the full report, now cached and current
    snap = desk_snapshot(demo, CURATOR)
    assert snap.agreement is not None and snap.agreement_intervals
    assert [f.id for f in snap.agreement] == [s["id"] for s in report["families"]]
    for family, section in zip(snap.agreement, report["families"], strict=True):
        if section["id"] == "order":
            expected = section["details"]["strict_agreement"]
        else:
            expected = section["coefficients"]["percent_agreement"]
        # The desk's values are the point estimates of the stored sums: the report's,
        # up to floating-point rounding; the intervals are the cached report's own.
        assert family.agreement == _approx(expected["value"])
        assert family.ci95 == expected["ci95"]
        assert family.n_units == section["n_units"]
        assert family.alpha == _approx(section["coefficients"]["krippendorff_alpha"]["value"])
    assert snap.agreement_note == report["basis"]["statement"]


def test_desk_never_computes_the_full_agreement_report(tmp_path: Path) -> None:
    """Values at once, intervals only from a current cached report: a new submission makes
    the cached report stale, and the desk says its intervals are being recomputed."""
    build_demo(str(tmp_path / "p"))
    project = open_project(tmp_path / "p")
    try:
        first = desk_snapshot(project, CURATOR)
        assert first.agreement is not None and not first.agreement_intervals
        assert first.agreement_note == INTERVALS_PENDING
        assert all(f.ci95 is None for f in first.agreement)
        agreement_report(project, CURATOR)
        after = desk_snapshot(project, CURATOR)
        assert after.agreement_intervals and after.agreement_note != INTERVALS_PENDING
        assert [f.agreement for f in after.agreement or []] == [
            f.agreement for f in first.agreement]
        with project.read() as session:
            name, case_id = session.execute(
                select(User.name, Case.case_id)
                .join(Annotation, Annotation.annotator_id == User.id)
                .join(Case, Case.id == Annotation.case_pk)
                .where(Annotation.state.in_(("assigned", "in_progress")),
                       Case.state == "annotating")
                .order_by(Case.case_id)).first() or (None, None)
        assert name is not None and case_id is not None
        _label_fully(project, name, case_id, random.Random(3), disagree=0.5)
        kinds.CASES.submit(project, name, case_id)
        stale = desk_snapshot(project, CURATOR)
        assert not stale.agreement_intervals and stale.agreement_note == INTERVALS_PENDING
    finally:
        project.close()


def test_sme_progress_equals_sme_results_json(demo: Project, demo_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    snap = desk_snapshot(demo, CURATOR)
    results = _json(capsys, demo_dir, "sme-results")["benchmarks"]
    assert [b.code for b in snap.sme_benchmarks] == [b["code"] for b in results]
    for mine, theirs in zip(snap.sme_benchmarks, results, strict=True):
        assert (mine.resolved, mine.undecided, mine.unsubmitted) == (
            theirs["items"], theirs["undecided"], theirs["unsubmitted"])
    assert any(b.undecided for b in snap.sme_benchmarks)


def test_work_of_each_kind_equals_each_raters_queue(demo: Project) -> None:
    snap = desk_snapshot(demo, CURATOR)
    sme_states: Counter[str] = Counter()
    judge_done = judge_total = 0
    for name in PHYSICIANS:
        sme_states.update(e.state for e in sme_review.queue(demo, name))
        mine = judge_scoring.my_items(demo, name)
        judge_total += len(mine)
        judge_done += sum(1 for _item, _title, done in mine if done)
    sme = snap.work["sme"]
    assert (sme.assigned, sme.submitted) == (sum(sme_states.values()), sme_states["submitted"])
    judge = snap.work["judge"]
    assert (judge.assigned, judge.submitted) == (judge_total, judge_done) != (0, 0)
    cases = snap.work["case"]
    assert cases.assigned == sum(a.assigned for a in snap.annotators)
    assert cases.submitted == snap.status["annotations_submitted"]


def _annotations(demo: Project) -> list[tuple[str, str, str, Annotation]]:
    with demo.read() as session:
        rows = session.execute(
            select(Case.case_id, Case.state, User.name, Annotation)
            .join(Case, Case.id == Annotation.case_pk)
            .join(User, User.id == Annotation.annotator_id)
            .where(Annotation.withdrawn_at.is_(None))
        ).all()
        return [(c, s, n, a) for c, s, n, a in rows]


def test_active_time_and_submissions_per_day_from_the_rows(demo: Project) -> None:
    snap = desk_snapshot(demo, CURATOR)
    rows = _annotations(demo)
    for row in snap.annotators:
        times = [a.labels.get("active_seconds") for _c, _s, n, a in rows
                 if n == row.name and a.state == "submitted"]
        # Kept to the nearest 6 s (store.counts): the median of the rounded times.
        measured = [6 * math.floor(float(t) / 6 + 0.5) for t in times if t]
        assert measured and row.median_active_seconds == statistics.median(measured)
    days = Counter(a.submitted_at.date().isoformat() for *_x, a in rows
                   if a.state == "submitted")
    assert snap.submissions_per_day == sorted(days.items())
    assert sum(n for _d, n in snap.submissions_per_day) == snap.status["annotations_submitted"]


def test_stuck_work_follows_the_setting(demo: Project) -> None:
    assert desk_snapshot(demo, CURATOR).stuck_total == 0  # the demo was made just now
    later = utcnow() + timedelta(days=30)
    snap = desk_snapshot(demo, CURATOR, now=later)
    expected = {(c, n) for c, s, n, a in _annotations(demo)
                if s == "annotating" and a.state != "submitted"}
    assert snap.stuck_after_days == STUCK_AFTER_DAYS.default
    assert {(w.case_id, w.annotator) for w in snap.stuck} == expected != set()
    assert snap.stuck_total == len(expected)
    assert all(w.idle_days >= 29 for w in snap.stuck)
    assert desk_snapshot(demo, CURATOR, now=later, stuck_after_days=31).stuck_total == 0
    demo.set_setting(STUCK_AFTER_DAYS, 31)
    try:
        assert desk_snapshot(demo, CURATOR, now=later).stuck_total == 0
    finally:
        demo.set_setting(STUCK_AFTER_DAYS, None)


def test_desk_json_is_the_snapshot(demo: Project, demo_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    printed = _json(capsys, demo_dir, "desk")
    expected = json.loads(json.dumps(desk_snapshot(demo, CURATOR).as_json()))
    printed.pop("at"), expected.pop("at")
    assert printed == expected
    code = main(["--project", str(demo_dir), "desk"])
    text = capsys.readouterr().out
    assert code == 0 and "conflicts waiting" in text and PHYSICIANS[0] in text


def test_an_adjudicator_sees_no_agreement_and_an_annotator_no_desk(  # type: ignore[no-untyped-def]
    demo: Project, demo_dir: Path, capsys
) -> None:
    snap = desk_snapshot(demo, SENIOR)
    assert snap.agreement is None and "curator role" in snap.agreement_note
    assert snap.status == desk_snapshot(demo, CURATOR).status
    with pytest.raises(PermissionDenied, match="viewing the curator's desk needs"):
        desk_snapshot(demo, PHYSICIANS[0])
    code = main(["--project", str(demo_dir), "--as", PHYSICIANS[0], "desk"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "adjudicator or curator" in err


def test_the_desk_on_each_back_end(team: Project, tmp_path: Path) -> None:
    """The aggregate queries (JSON field, date of a timestamp) run on SQLite and PostgreSQL."""
    from annotator.domain.labels import LabelEdit
    from annotator.services.assignments import assign
    from annotator.services.imports import import_cases
    from annotator.services.review.kind import CASES
    from factories import make_case, write_case_file

    import_cases(team, "cu", [write_case_file(tmp_path / "d", [make_case("C1")])])
    assign(team, "cu", 2)
    CASES.set_fields(team, "a1", "C1", [LabelEdit("active_seconds", 90.0)])
    snap = desk_snapshot(team, "cu", now=utcnow() + timedelta(days=8))
    rows = {a.name: a for a in snap.annotators}
    assert rows["a1"].in_progress == 1 and rows["a1"].median_active_seconds is None
    assert snap.stuck_total == 2 and snap.submissions_per_day == []
    assert snap.work["case"].assigned == 2


def test_the_annotator_table_is_read_a_page_at_a_time_by_name(team: Project,
                                                               tmp_path: Path) -> None:
    """The snapshot holds the first rows and the total; the pages after a name (keyset)
    make up the rest, on each back end. Listed: whoever takes work, and a former annotator
    who still has case work; not the curator or the adjudicator."""
    from annotator.errors import ValidationError
    from annotator.services.assignments import assign
    from annotator.services.imports import import_cases
    from annotator.services.users import add_user, change_roles
    from factories import make_case, write_case_file

    for name in ("a4", "a5"):
        add_user(team, "cu", name, ["annotator"])
    import_cases(team, "cu", [write_case_file(tmp_path / "d", [make_case("C1")])])
    assign(team, "cu", 2)
    worker = next(a.name for a in desk_snapshot(team, "cu").annotators if a.assigned)
    change_roles(team, "cu", worker, add=["adjudicator"], remove=["annotator"])

    everyone = desk_snapshot(team, "cu", annotators=None)
    assert [a.name for a in everyone.annotators] == ["a1", "a2", "a3", "a4", "a5"]
    assert everyone.annotators_total == 5
    assert next(a for a in everyone.annotators if a.name == worker).assigned == 1
    first = desk_snapshot(team, "cu", annotators=2)
    assert first.annotators == everyone.annotators[:2] and first.annotators_total == 5
    rows, after = list(first.annotators), first.annotators[-1].name
    while page := annotator_rows(team, "cu", after=after, limit=2):
        assert len(page) <= 2
        rows, after = rows + page, page[-1].name
    assert rows == everyone.annotators
    assert desk_snapshot(team, "adj", annotators=10).annotators_total == 5
    with pytest.raises(PermissionDenied):
        annotator_rows(team, "a2")
    with pytest.raises(ValidationError):
        annotator_rows(team, "cu", limit=0)


def test_a_curator_sets_the_stuck_limit_in_the_history(team: Project) -> None:
    from annotator.errors import ValidationError
    from annotator.services.desk import set_stuck_after_days
    from annotator.store.schema import HistoryEntry

    assert set_stuck_after_days(team, "cu", 3) == STUCK_AFTER_DAYS.default
    assert team.setting(STUCK_AFTER_DAYS) == 3
    assert desk_snapshot(team, "cu").stuck_after_days == 3
    with team.read() as session:
        entry = session.scalars(select(HistoryEntry).where(
            HistoryEntry.action == "setting_changed")).one()
        assert (entry.actor, entry.key, entry.before, entry.after) == (
            "cu", "stuck_after_days", STUCK_AFTER_DAYS.default, 3)
    with pytest.raises(PermissionDenied, match="stuck limit needs the curator role"):
        set_stuck_after_days(team, "adj", 5)
    for bad in (-1, 99999, True):
        with pytest.raises(ValidationError, match="whole number of days"):
            set_stuck_after_days(team, "cu", bad)
    assert team.setting(STUCK_AFTER_DAYS) == 3
