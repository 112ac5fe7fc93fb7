"""Hidden repeats (issue 26): served to the rater as an ordinary assignment, never counted
between raters, never moving a case; intra-rater figures are the engine's coefficients."""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select

from annotator.agreement import quality as Q
from annotator.agreement.measure import Measure
from annotator.domain.labels import LabelEdit
from annotator.errors import ValidationError
from annotator.services import agreement, annotating, kinds, workspace
from annotator.services.assignments import assign
from annotator.services.case_history import case_history
from annotator.services.imports import import_cases
from annotator.services.quality import snapshot
from annotator.services.rating.repeats import add_repeats, repeat_pairs
from annotator.services.review import base
from annotator.services.status import project_status
from annotator.store.repeats import WITH_REPEATS, served
from annotator.store.schema import Annotation, utcnow
from factories import make_case, write_case_file

CASE_IDS = ("T1", "T2", "T3")


def _complete(project: Any, name: str, case_id: str, **importance: str) -> None:
    annotating.accept_suggestions(project, name, case_id)
    edits = [LabelEdit(f"importance:{fig}", {"value": v, "how": "set"})
             for fig, v in importance.items()]
    if edits:
        kinds.CASES.set_fields(project, name, case_id, edits)
    kinds.CASES.submit(project, name, case_id)


@pytest.fixture
def reviewed(team: Any, tmp_path: Path) -> Any:
    """Three cases, each annotated by a1 and a2 and in review."""
    path = write_case_file(tmp_path / "drafts", [make_case(c) for c in CASE_IDS])
    import_cases(team, "cu", [path])
    assign(team, "cu", 2, quotas={"a3": 0})
    for case_id in CASE_IDS:
        _complete(team, "a1", case_id)
        _complete(team, "a2", case_id, **{"Figure 3": "essential"})
    return team


def _figures(project: Any) -> dict[str, Any]:
    """Everything between raters a repeat must not touch."""
    agreement.forget_cached_report(project)
    with project.read() as s:
        rows = agreement.input_rows(s)
    return {
        "report": agreement.agreement_report(project, "cu"),
        "inputs": repr(rows),
        "status": project_status(project),
        # the case's state, final values, its release record and what blocks it
        "cases": {c: repr(base.review_case(project, c)) for c in CASE_IDS},
        "conflicts": kinds.CASES.open_conflicts(project, "adj"),
    }


def test_a_repeat_is_served_blind_and_counts_nowhere_between_raters(reviewed: Any) -> None:
    before = _figures(reviewed)
    first_view = kinds.CASES.blind_view(reviewed, "a1", "T1")
    report = add_repeats(reviewed, "cu", "case", 1.0, 0)
    assert report.count == 6  # every submitted first rating of a1 and a2

    # The rater's client receives an ordinary assignment: same keys, no marker, nothing of
    # the first rating (compared with a fresh assignment of the same case).
    repeat_view = kinds.CASES.blind_view(reviewed, "a1", "T1")
    assert set(repeat_view) == set(first_view)
    assert repeat_view["state"] == "assigned" and repeat_view["values"] == {}
    assert repeat_view["revealed"] is None and repeat_view["feedback"] is None
    assert "repeat" not in repr(repeat_view).lower()
    view = annotating.view(reviewed, "a1", "T1")
    assert view.state == "assigned" and view.labels == {}
    row = workspace.case_row(reviewed, "a1", "T1")
    assert row.state == "assigned" and row.done == 0
    listing = workspace.case_list(reviewed, "a1")
    assert [r.state for r in listing.rows] == ["assigned"] * 3 and listing.submitted == 0
    assert "repeat" not in repr(asdict(row)).lower()
    # Nor does the rater's own history of the case give the first labels away.
    assert case_history(reviewed, "a1", "T1") == []
    assert kinds.CASES.trail(reviewed, "a1", "T1") == []
    assert [h.action for h in case_history(reviewed, "cu", "T1")].count("submitted") == 2

    # Doing the repeat, with other labels, moves nothing between raters.
    _complete(reviewed, "a1", "T1", **{"Figure 1": "optional"})
    _complete(reviewed, "a1", "T2")
    after = _figures(reviewed)
    assert after == before
    assert kinds.CASES.blind_view(reviewed, "a1", "T1")["state"] == "submitted"


def test_a_repeat_waits_until_it_is_due(reviewed: Any) -> None:
    add_repeats(reviewed, "cu", "case", 1.0, 3)
    assert annotating.view(reviewed, "a1", "T1").state == "submitted"  # the first, for now
    with reviewed.read() as s:
        first = s.scalars(select(Annotation)).first()
        assert first is not None
        assert served(s, first) is first
        later = served(s, first, utcnow() + timedelta(days=4))
        assert later.repeat_of == first.id and later.state == "assigned"
    # A second call adds nothing: those items are repeated already.
    assert add_repeats(reviewed, "cu", "case", 1.0, 3).count == 0


def test_intra_rater_figures_are_the_engines_coefficients(reviewed: Any) -> None:
    add_repeats(reviewed, "cu", "case", 1.0, 0)
    _complete(reviewed, "a1", "T1", **{"Figure 1": "optional"})
    _complete(reviewed, "a1", "T2")
    _complete(reviewed, "a1", "T3", **{"Figure 2": "optional", "Figure 3": "essential"})
    with reviewed.read() as s:
        pairs = repeat_pairs(s, "case")
        assert len(pairs) == 3 and all(f.rater_id == r.rater_id for f, r in pairs)
        units = [(str(f.case_pk), Q.plain(f.submitted[k]), Q.plain(r.submitted[k]))
                 for f, r in pairs for k in sorted(f.submitted)
                 if k.startswith("importance:")]
    ratings, k = Q.ratings_of(units)
    alpha = Measure("krippendorff_alpha", n_categories=k, level="nominal")
    same = sum(a == b for _i, a, b in units)
    rows = {r["family"]: r for r in
            next(q for q in snapshot(reviewed, "cu").raters if q.rater == "a1").intra}
    importance = rows["importance"]
    assert importance["items"] == 3 and importance["agreement"]["n"] == len(units) == 9
    assert importance["agreement"]["value"] == pytest.approx(same / len(units))
    assert importance["chance_corrected"]["value"] == pytest.approx(alpha.estimate(ratings))
    assert importance["coefficient"] == "krippendorff_alpha"
    ci = alpha.interval(ratings)
    expected = None if ci is None else ci.low
    assert importance["chance_corrected"]["low"] == expected
    # Rankings: pairwise order agreement of the stages, per item.
    assert rows["stage"]["scale"] == "ranking"
    assert 0.0 <= rows["stage"]["agreement"]["value"] <= 1.0
    assert not np.isnan(rows["stage"]["agreement"]["value"])


def test_bad_repeat_options_are_one_line_errors(reviewed: Any) -> None:
    for rate, days in ((0.0, 1.0), (1.5, 1.0), (0.5, -1.0)):
        with pytest.raises(ValidationError, match="--repeat"):
            add_repeats(reviewed, "cu", "case", rate, days)
    with pytest.raises(Exception, match="curator"):
        add_repeats(reviewed, "a1", "case", 0.5, 1)


def test_repeats_are_kept_out_of_plain_queries_but_not_lost(reviewed: Any) -> None:
    add_repeats(reviewed, "cu", "case", 1.0, 0)
    with reviewed.read() as s:
        assert len(s.scalars(select(Annotation)).all()) == 6
        everything = s.scalars(select(Annotation).execution_options(**WITH_REPEATS)).all()
        assert len(everything) == 12


def test_work_counts_from_the_counters_are_the_first_ratings_counted(reviewed: Any) -> None:
    """The agreement report's counts of work per annotator come from the project counters;
    they equal a count of the annotations (first ratings), repeats present or not."""
    from sqlalchemy import case as sql_case
    from sqlalchemy import func

    def counted(s: Any) -> list[tuple[Any, int, int]]:
        done = func.sum(sql_case((Annotation.state == "submitted", 1), else_=0))
        return [(r, int(n), int(d)) for r, n, d in s.execute(
            select(Annotation.annotator_id, func.count(), done)
            .where(Annotation.withdrawn_at.is_(None))
            .group_by(Annotation.annotator_id).order_by(Annotation.annotator_id))]

    with reviewed.read() as s:
        before = counted(s)
        assert agreement._work_counts(s) == before and len(before) == 2
    add_repeats(reviewed, "cu", "case", 1.0, 0)
    _complete(reviewed, "a1", "T1")
    with reviewed.read() as s:
        assert agreement._work_counts(s) == counted(s) == before
