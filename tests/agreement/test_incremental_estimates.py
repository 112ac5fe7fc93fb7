"""Point estimates from stored per-case statistics (issue 27) equal the full report's.

Random projects on both stores go through seeded sequences of submissions, reopenings,
adjudications, green lights, exclusions and reinstatements; after every step the point
estimates (summed stored statistics, stale cases recomputed) are compared with the full
recomputation of :func:`agreement_report` to 1e-12, coefficient by coefficient. The cases
recomputed are those the writers marked stale (``agreement_stale``): after every step, every
case whose statistics key changed must be marked, or the sum would silently go stale.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select

from annotator.agreement.options import ReportOptions
from annotator.domain.labels import IMPORTANCE
from annotator.errors import AnnotatorError, PermissionDenied
from annotator.services import agreement, annotating, kinds
from annotator.services.agreement import (
    agreement_report,
    forget_cached_report,
    point_estimates,
    unmarked,
)
from annotator.services.assignments import assign
from annotator.services.demo import _label_fully
from annotator.services.imports import import_cases
from annotator.services.review import decisions, reopen
from annotator.services.users import add_user
from annotator.store import agreement_stale
from annotator.store.project import Project, open_project
from annotator.store.schema import AgreementPairSum, AgreementStats, Case
from factories import make_case, write_case_file

OPTIONS = ReportOptions(min_shared=2)  # small projects: pair kappas defined on few units


def _assert_equal(project: Project) -> dict[str, Any]:
    estimates = point_estimates(project, "cu", OPTIONS)
    report = agreement_report(project, "cu", OPTIONS)
    assert [f["id"] for f in estimates["families"]] == [s["id"] for s in report["families"]]
    for mine, section in zip(estimates["families"], report["families"], strict=True):
        assert mine["n_units"] == section["n_units"], mine["id"]
        for name, full in section["coefficients"].items():
            value = mine["coefficients"][name]
            assert (value is None) == (full["value"] is None), (mine["id"], name, value, full)
            if value is not None:
                assert value == pytest.approx(full["value"], abs=1e-12), (mine["id"], name)
        if mine["id"] == "order":  # the family's headline, strict-pair agreement, too
            strict, full_strict = (mine["details"]["strict_agreement"],
                                   section["details"]["strict_agreement"])
            assert strict["pairs"] == full_strict["pairs"]
            assert (strict["value"] is None) == (full_strict["value"] is None)
            if strict["value"] is not None:
                assert strict["value"] == pytest.approx(full_strict["value"], abs=1e-12)
    return estimates


def _project(team: Project, tmp_path: Path, n_cases: int) -> list[tuple[str, str]]:
    cases = [make_case(f"R{i:02d}") for i in range(n_cases)]
    import_cases(team, "cu", [write_case_file(tmp_path / "drafts", cases)])
    return list(assign(team, "cu", 3, case_ids=[c["case_id"] for c in cases]).assigned)


def _step(project: Project, rng: random.Random, placed: list[tuple[str, str]],
          submitted: set[tuple[str, str]]) -> str:
    """One random action that the services accept; returns its name."""
    action = rng.choices(["submit", "reopen", "decide", "green_light", "exclude"],
                         weights=[6, 2, 2, 1, 1])[0]
    case_id, name = rng.choice(placed)
    complete = sorted({c for c, _ in placed
                       if all((c, n) in submitted for cc, n in placed if cc == c)})
    if action in ("decide", "green_light", "exclude"):
        if not complete:
            action = "submit"
        else:
            case_id = rng.choice(complete)  # in review (or beyond): what seniors act on
    try:
        if action == "submit" or (case_id, name) not in submitted and action == "reopen":
            if (case_id, name) in submitted:
                return "none"
            _label_fully(project, name, case_id, rng, disagree=0.4)
            kinds.CASES.submit(project, name, case_id)
            submitted.add((case_id, name))
            return "submit"
        if action == "reopen":
            annotating.reopen(project, name, case_id)
            submitted.discard((case_id, name))
        elif action == "decide":
            figure = annotating.view(project, name, case_id).figures[0]
            decisions.decide(project, "adj", case_id, f"importance:{figure}",
                             rng.choice(IMPORTANCE), "clinical_judgement")
        elif action == "green_light":
            decisions.green_light(project, "adj", case_id)
        elif rng.random() < 0.5:
            decisions.exclude(project, "adj", case_id, "unusable images")
        else:
            reopen.reinstate(project, "adj", case_id, "images fixed")
    except AnnotatorError:
        return "refused"
    return action


@pytest.mark.parametrize("seed", [1, 2])
def test_point_estimates_equal_the_full_report_after_every_step(
    team: Project, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    placed = _project(team, tmp_path, 5)
    submitted: set[tuple[str, str]] = set()
    done = []
    for _ in range(40):
        done.append(_step(team, rng, placed, submitted))
        if done[-1] not in ("none", "refused"):
            _assert_equal(team)
    assert {"submit", "reopen", "decide"} <= set(done), done
    # The stored sum, kept up to date by differences, equals one computed afresh.
    before = point_estimates(team, "cu", OPTIONS)
    with team.tx() as session:
        from sqlalchemy import delete

        from annotator.store.schema import AgreementStats

        session.execute(delete(AgreementStats))
    afresh = point_estimates(team, "cu", OPTIONS)
    assert afresh["recomputed"] == len({c for c, _ in placed})
    for a, b in zip(before["families"], afresh["families"], strict=True):
        for name, value in a["coefficients"].items():
            assert value == pytest.approx(b["coefficients"][name], abs=1e-12, nan_ok=False)


def test_one_more_submission_recomputes_one_case(team: Project, tmp_path: Path) -> None:
    rng = random.Random(5)
    placed = _project(team, tmp_path, 6)
    for case_id, name in placed[:-1]:
        _label_fully(team, name, case_id, rng, disagree=0.3)
        kinds.CASES.submit(team, name, case_id)
    first = point_estimates(team, "cu")
    assert first["recomputed"] == 6
    assert point_estimates(team, "cu")["recomputed"] == 0  # nothing changed: nothing written
    case_id, name = placed[-1]
    _label_fully(team, name, case_id, rng, disagree=0.3)
    kinds.CASES.submit(team, name, case_id)
    forget_cached_report(team)
    after = _assert_equal(team)
    assert point_estimates(team, "cu")["recomputed"] == 0
    assert after["families"] != first["families"]


def test_a_submission_rewrites_only_the_rater_pairs_of_its_case(
    team: Project, tmp_path: Path
) -> None:
    """The pairs' summed tables live in rows of their own (they grow with the raters): one
    more submission rewrites its case's pairs only, and every stored pair table is the sum
    of the case rows' tables."""
    for name in ("a4", "a5"):  # five raters, three a case: a case has some of the pairs
        add_user(team, "cu", name, ["annotator"])
    rng = random.Random(9)
    placed = _project(team, tmp_path, 6)
    for case_id, name in placed[:-1]:
        _label_fully(team, name, case_id, rng, disagree=0.3)
        kinds.CASES.submit(team, name, case_id)
    point_estimates(team, "cu")
    written: list[tuple[str, str]] = []

    def watch(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any,
              many: bool) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO AGREEMENT_PAIR_SUMS"):
            for row in parameters if many else [parameters]:
                values = row.values() if isinstance(row, dict) else row
                family, pair = list(values)[:2]
                written.append((family, pair))

    case_id, name = placed[-1]
    _label_fully(team, name, case_id, rng, disagree=0.3)
    kinds.CASES.submit(team, name, case_id)
    event.listen(team.engine, "before_cursor_execute", watch)
    try:
        point_estimates(team, "cu")
    finally:
        event.remove(team.engine, "before_cursor_execute", watch)
    with team.read() as session:
        case_pk = session.scalar(select(Case.id).where(Case.case_id == case_id))
        rows = dict(session.execute(select(AgreementStats.case_pk, AgreementStats.stats)
                                    .where(AgreementStats.case_pk.not_in(agreement.RESERVED))).all())
        stored = {(f, p): t for f, p, t in session.execute(select(
            AgreementPairSum.family, AgreementPairSum.pair, AgreementPairSum.counts))}
    own = {(fid, pair) for fid, sums in rows[case_pk].items() for pair in sums["pairs"]}
    assert own and set(written) == own
    assert own < set(stored)  # the project's other pairs were left as they were
    summed: dict[tuple[str, str], list[float]] = {}
    for stats in rows.values():
        for fid, sums in stats.items():
            for pair, table in sums["pairs"].items():
                before = summed.get((fid, pair), [0.0] * len(table))
                summed[(fid, pair)] = [a + b for a, b in zip(before, table, strict=True)]
    assert stored == {key: table for key, table in summed.items() if any(table)}


def test_the_sum_is_read_again_only_when_a_write_changed_it(
    team: Project, project_location: str, tmp_path: Path
) -> None:
    """A process keeps the last sum it read (it grows with the rater pairs): unchanged, it
    is not read again; changed through another connection (another person's process), the
    next estimates are the changed ones, equal to a fresh process's and the full report's."""
    rng = random.Random(8)
    placed = _project(team, tmp_path, 6)
    for case_id, name in placed[:-2]:
        _label_fully(team, name, case_id, rng, disagree=0.3)
        kinds.CASES.submit(team, name, case_id)
    first = point_estimates(team, "cu")
    sums_read: list[str] = []

    def watch(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "agreement_stats.stats" in statement:
            sums_read.append(statement)

    event.listen(team.engine, "before_cursor_execute", watch)
    try:
        assert point_estimates(team, "cu")["families"] == first["families"]
        assert sums_read == []  # nothing changed: the sum is not read again
        mine = dict(agreement._SUMS)  # what this process keeps; the other process has its own
        other = open_project(project_location, create=False, backup=False)
        try:
            for case_id, name in placed[-2:]:
                _label_fully(other, name, case_id, rng, disagree=0.3)
                kinds.CASES.submit(other, name, case_id)
            from_other = point_estimates(other, "cu")  # the other process writes the sum
        finally:
            other.close()
            agreement._SUMS.clear()
            agreement._SUMS.update(mine)
        after = point_estimates(team, "cu")
        assert sums_read  # the keys changed: read again
    finally:
        event.remove(team.engine, "before_cursor_execute", watch)
    assert after == {**from_other, "recomputed": 0}
    assert after["families"] != first["families"]
    fresh = open_project(project_location, create=False, backup=False)
    try:
        agreement._SUMS.clear()  # a process that has read nothing yet
        assert point_estimates(fresh, "cu") == after
    finally:
        fresh.close()
    forget_cached_report(team)
    full = agreement_report(team, "cu")
    for mine, section in zip(after["families"], full["families"], strict=True):
        for name, value in mine["coefficients"].items():
            expected = section["coefficients"][name]["value"]
            assert (value is None) == (expected is None), (mine["id"], name)
            if value is not None:
                assert value == pytest.approx(expected, abs=1e-12), (mine["id"], name)


def test_point_estimates_are_for_curators_only(team: Project) -> None:
    for person in ("a1", "adj"):
        with pytest.raises(PermissionDenied):
            point_estimates(team, person)


def _marks(project: Project) -> set[Any]:
    with project.read() as session:
        return set(agreement_stale.marked(session.connection()))


def _pk(project: Project, case_id: str) -> Any:
    from sqlalchemy import select

    from annotator.store.schema import Case

    with project.read() as session:
        return session.scalars(select(Case.id).where(Case.case_id == case_id)).one()


@pytest.mark.parametrize("seed", [3, 4])
def test_every_writer_marks_the_cases_whose_statistics_it_changes(
    team: Project, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    placed = _project(team, tmp_path, 5)
    submitted: set[tuple[str, str]] = set()
    point_estimates(team, "cu")
    done = []
    for _ in range(40):
        done.append(_step(team, rng, placed, submitted))
        with team.read() as session:
            assert unmarked(session) == [], done[-1]  # every changed key is marked
        point_estimates(team, "cu")  # stores the keys, clears the marks
        assert _marks(team) == set()
    assert {"submit", "reopen", "decide"} <= set(done), done


def test_a_write_that_does_not_mark_is_caught_and_a_draft_marks_nothing(
    team: Project, tmp_path: Path
) -> None:
    from sqlalchemy import update

    from annotator.store.schema import Case

    placed = _project(team, tmp_path, 2)
    case_id, name = placed[0]
    figure = annotating.view(team, name, case_id).figures[0]
    annotating.set_label(team, name, case_id, "importance", figure, "essential")  # started
    point_estimates(team, "cu")
    # A label saved but not submitted changes no statistic: nothing to mark.
    annotating.set_label(team, name, case_id, "importance", figure, "optional")
    assert _marks(team) == set()
    # A core UPDATE passes no flush hook: the safety net names the case it left unmarked.
    with team.tx() as session:
        session.execute(update(Case).where(Case.case_id == case_id).values(state_reason="x"))
    with team.read() as session:
        assert unmarked(session) == [_pk(team, case_id)]


def test_a_clone_marks_the_cases_it_copies(team: Project, tmp_path: Path) -> None:
    from annotator.bench.clone import clone_cases

    rng = random.Random(7)
    cases = [make_case(f"bench-{i:05d}") for i in range(1, 4)]
    import_cases(team, "cu", [write_case_file(tmp_path / "drafts", cases)])
    placed = list(assign(team, "cu", 3, case_ids=[c["case_id"] for c in cases]).assigned)
    for case_id, name in placed[:-1]:
        _label_fully(team, name, case_id, rng, disagree=0.3)
        kinds.CASES.submit(team, name, case_id)
    point_estimates(team, "cu")
    assert clone_cases(team, 6) == 6
    copies = {_pk(team, f"bench-{i:05d}") for i in range(4, 7)}
    assert _marks(team) == copies
    with team.read() as session:
        assert unmarked(session) == []
    assert point_estimates(team, "cu")["recomputed"] == 3
    _assert_equal(team)
