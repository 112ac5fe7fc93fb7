"""The project counters (store.counts) the writes keep, on SQLite and PostgreSQL: equal to a
recount of the rows after every step of a case's life, untouched by a savepoint that rolled
back, found drifted and fixed by ``repair``, and what ``status`` and the desk print."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest
from sqlalchemy import event, select, text

from annotator.domain.labels import LabelEdit
from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.desk import desk_snapshot
from annotator.services.imports import import_cases
from annotator.services.repair import CountFix, repair_counts
from annotator.services.review import decisions
from annotator.services.status import project_status
from annotator.services.workspace_state import add_active_time
from annotator.store import counts
from annotator.store.project import Project, open_project
from annotator.store.schema import Annotation, Case, User
from factories import make_case, write_case_file


def _drift(project: Project) -> dict[str, tuple[int, int]]:
    with project.read() as session:
        return counts.drift(session.connection())


def _assigned(project: Project, case_id: str) -> list[str]:
    names = []
    for name in ("a1", "a2", "a3"):
        try:
            annotating.view(project, name, case_id)
            names.append(name)
        except Exception:
            pass
    return names


def _complete(project: Project, name: str, case_id: str, **overrides: str) -> None:
    annotating.accept_suggestions(project, name, case_id)
    edits = [LabelEdit(f"importance:{fig}", {"value": v, "how": "set"})
             for fig, v in overrides.items()]
    if edits:
        kinds.CASES.set_fields(project, name, case_id, edits)
    kinds.CASES.submit(project, name, case_id)


@pytest.fixture
def imported(team, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = write_case_file(tmp_path / "drafts", [make_case(c) for c in ("T1", "T2", "T3")])
    import_cases(team, "cu", [path])
    assign(team, "cu", 2)
    return team


def test_counters_follow_a_case_through_review(imported: Project) -> None:
    assert _drift(imported) == {}
    status = project_status(imported)
    assert (status["cases"], status["annotating"], status["annotations_submitted"]) == (3, 3, 0)
    assert status["images"] > 0 and status["exams"] > 0

    a, b = _assigned(imported, "T1")
    _complete(imported, a, "T1")
    _complete(imported, b, "T1", **{"Figure 3": "essential"})
    assert _drift(imported) == {}
    status = project_status(imported)
    assert (status["in_review"], status["annotations_submitted"]) == (1, 2)

    assert annotating.reopen(imported, b, "T1") == "annotating"  # back, and counted so
    assert _drift(imported) == {}
    assert project_status(imported)["annotations_submitted"] == 1
    kinds.CASES.submit(imported, b, "T1")
    decisions.decide(imported, "adj", "T1", "importance:Figure 3", "optional",
                     "clinical_judgement", "FLAIR of the brain does not change the workup")
    decisions.green_light(imported, "adj", "T1")
    decisions.exclude(imported, "adj", "T2", "the images do not show the finding")
    assert _drift(imported) == {}
    status = project_status(imported)
    assert (status["green_lit"], status["excluded"], status["annotating"]) == (1, 1, 1)

    # The desk reads the same counters: per annotator, per kind, per day.
    desk = desk_snapshot(imported, "cu")
    rows = {r.name: r for r in desk.annotators}
    assert rows[a].submitted == 1 and rows[b].submitted == 1
    assert desk.work["case"].submitted == 2
    assert sum(n for _day, n in desk.submissions_per_day) == 2


def _active(project: Project) -> dict[str, int]:
    with project.read() as session:
        return {k: n for k, n in counts.read(session.connection(), prefix="active:").items()
                if n and k != counts.ACTIVE_STAMP}


def test_active_time_counters_follow_submission_reopening_and_changed_labels(
    imported: Project,
) -> None:
    a, b = _assigned(imported, "T1")
    add_active_time(imported, a, "T1", 99.4)
    assert _active(imported) == {}  # unsubmitted time is not counted
    _complete(imported, a, "T1")
    with imported.read() as session:
        me = session.scalar(select(User.id).where(User.name == a))
    assert me is not None
    assert _active(imported) == {counts.active_key(me, 99.4): 1} and _drift(imported) == {}

    assert annotating.reopen(imported, a, "T1") == "annotating"
    assert _active(imported) == {}
    add_active_time(imported, a, "T1", 30.2)  # 129.6 s in all: 132, to the nearest 6 s
    kinds.CASES.submit(imported, a, "T1")
    assert _active(imported) == {f"active:{me.hex}:132": 1}

    # A submitted row's labels changed in place (as a returning bundle does) move it too.
    with imported.tx() as session:
        work = session.scalars(select(Annotation).where(
            Annotation.annotator_id == me, Annotation.state == "submitted")).one()
        work.labels = {**work.labels, "active_seconds": 300.0}
    assert _active(imported) == {f"active:{me.hex}:300": 1} and _drift(imported) == {}
    assert {r.name: r.median_active_seconds
            for r in desk_snapshot(imported, "cu").annotators}[a] == 300


def test_active_medians_are_the_medians_of_the_counted_times(project: Project) -> None:
    # The desk's medians come from the counters, about a hundred rows per annotator, not
    # from the submitted labels: equal to statistics.median of the times the counters stand
    # for, for odd and even counts, a middle pair across two rows, one row, zero counts.
    import random
    import statistics
    import uuid

    rng = random.Random(27)
    times: dict[str, list[int]] = {
        uuid.uuid4().hex: [counts.ACTIVE_STEP * rng.randrange(0, 400)
                           for _ in range(rng.randrange(1, 60))]
        for _ in range(12)}
    times[uuid.uuid4().hex] = [60, 60, 120, 120]  # the middle pair across two rows
    times[uuid.uuid4().hex] = [300]
    deltas: dict[str, int] = {}
    for rater, values in times.items():
        for value in values:
            key = counts.active_key(rater, value)
            deltas[key] = deltas.get(key, 0) + 1
    idle = counts.active_key(uuid.uuid4().hex, 90)
    deltas[idle] = 1
    with project.tx() as session:
        counts.apply(session.connection(), deltas)
    with project.tx() as session:
        counts.apply(session.connection(), {idle: -1})  # a row left at zero counts nothing
    with project.read() as session:
        found = counts.active_medians(session.connection())
    assert found == {rater: statistics.median(values) for rater, values in times.items()}


def test_medians_are_read_again_only_when_the_active_counters_moved(
    project: Project, project_location: str
) -> None:
    # The desk keeps the medians it computed (33,000 rows at the bench's 100,000 cases)
    # until the stamp that every change of an active counter moves says they changed, also
    # when another connection (another person's process) made the change.
    import uuid

    rater = uuid.uuid4().hex
    with project.tx() as session:
        counts.apply(session.connection(), {counts.active_key(rater, 60): 1})
    rows_read: list[str] = []

    def watch(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if "FROM project_counts" in statement and ">=" in statement:
            rows_read.append(statement)

    def medians() -> dict[str, float]:
        with project.read() as session:
            return counts.active_medians(session.connection())

    assert medians() == {rater: 60}
    event.listen(project.engine, "before_cursor_execute", watch)
    try:
        with project.tx() as session:  # no active counter: the stamp stays
            counts.apply(session.connection(), {"exams": 1})
        assert medians() == {rater: 60} and rows_read == []
        other = open_project(project_location, create=False, backup=False)
        try:
            with other.tx() as session:  # one case moves from 60 s to 120 s
                counts.apply(session.connection(), {counts.active_key(rater, 60): -1,
                                                    counts.active_key(rater, 120): 1})
        finally:
            other.close()
        assert medians() == {rater: 120} and len(rows_read) == 1
    finally:
        event.remove(project.engine, "before_cursor_execute", watch)
    assert counts.ACTIVE_STAMP not in _drift(project)  # a stamp, no count: not for repair


def test_a_savepoint_rolled_back_takes_its_counts_with_it(project: Project) -> None:
    # As an import batch does for a refused case: its savepoint rolls back, its counts too.
    with project.tx() as session:
        session.add(Case(case_id="kept"))
        with contextlib.suppress(RuntimeError), session.begin_nested():
            session.add(Case(case_id="dropped"))
            session.flush()
            raise RuntimeError("refused")
        with session.begin_nested():
            session.add(Case(case_id="released", state="excluded"))
    assert _drift(project) == {}
    status = project_status(project)
    assert (status["cases"], status["annotating"], status["excluded"]) == (2, 1, 1)


def test_two_writers_at_once_keep_exact_counts(project: Project) -> None:
    # Both add cases (the same counter) at once; on PostgreSQL in parallel transactions:
    # nothing lost, no deadlock (the counters are changed last, in key order).
    def write(prefix: str) -> None:
        for n in range(15):
            with project.tx() as session:
                session.add(Case(case_id=f"{prefix}{n}"))
                session.flush()
                session.add(Case(case_id=f"{prefix}{n}-x", state="excluded"))

    threads = [threading.Thread(target=write, args=(p,)) for p in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _drift(project) == {}
    status = project_status(project)
    assert (status["annotating"], status["excluded"]) == (30, 30)


def test_repair_finds_and_fixes_drifted_counters(imported: Project) -> None:
    with imported.tx() as session:  # a write past the app: the counters cannot know
        session.execute(text("UPDATE cases SET state = 'excluded' WHERE case_id = 'T3'"))
    drifted = repair_counts(imported, "cu", dry_run=True)
    assert drifted == [CountFix("cases:annotating", 3, 2), CountFix("cases:excluded", 0, 1)]
    assert project_status(imported)["excluded"] == 0  # a dry run changes nothing
    assert repair_counts(imported, "cu") == drifted
    assert repair_counts(imported, "cu", dry_run=True) == []
    assert project_status(imported)["excluded"] == 1
