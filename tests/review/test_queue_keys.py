"""The review queue's keys kept by the writes (issue 27) equal a recomputation from the rows
after every step of seeded sequences of submissions, reopens, decisions, green lights,
exclusions, reinstatements and new draft versions, and the totals per group the database's
triggers keep equal a count of those keys; ``repair`` finds and fixes a key, or a total,
written past the app."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from review_support import chose, submit
from sqlalchemy import delete, select, update

from annotator.errors import AnnotatorError
from annotator.services import annotating
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.repair import TOTALS_ROW, repair_queue_keys
from annotator.services.review import decisions, reopen
from annotator.services.review.actions import decide_value
from annotator.services.review.queue import (
    case_queue,
    case_queue_page,
    key_of,
    list_items,
    recompute_all,
)
from annotator.services.users import add_user
from annotator.store import queue_keys
from annotator.store.schema import Case, QueueKey, QueueTotal
from factories import make_case, write_case_file

CASES = [f"K{i}" for i in range(1, 5)]
LABELS: list[dict[str, Any]] = [
    {},
    {"importance:Figure 3": chose("essential")},
    {"importance:Figure 3": chose("optional"), "difficulty": chose("hard")},
    {"stage:Figure 3": chose(3)},
    {"difficulty": chose("normal")},
    {"discard": {"reason_code": "leakage", "text": "in the title"}},
]


@pytest.fixture
def team(project, tmp_path: Path):  # type: ignore[no-untyped-def]
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    import_cases(project, "cu", [write_case_file(tmp_path / "drafts",
                                                 [make_case(c) for c in CASES])])
    assign(project, "cu", 2)
    return project


def _walled_writes(project: Any) -> bool:
    """Each service call runs as the acting person's login (``ANNOTATOR_PG_AS_ROLES=1``): an
    annotator's write cannot read colleagues' work, so it only marks the key stale."""
    return (os.environ.get("ANNOTATOR_PG_AS_ROLES") == "1"
            and project.engine.dialect.name == "postgresql")


def _check(project: Any) -> set[int]:
    """Every stored key is fresh and equals the key recomputed from the rows; the groups.
    On a walled store, after the senior's next queue read, which recomputes the stale keys
    (as it does in use)."""
    if _walled_writes(project):
        case_queue_page(project, "adj")
    with project.read() as session:
        stored = queue_keys.stored(session.connection())
        keys, stale = recompute_all(session)
        totals = queue_keys.totals(session.connection())
    groups: dict[int, list[int]] = {}
    for (group, _, open_conflicts), _ in stored.values():
        groups.setdefault(group, []).append(open_conflicts)
    assert totals == {g: (len(found), sum(found)) for g, found in groups.items()}
    assert not stale  # the writers detected every case they moved into review
    assert {pk: key for pk, (key, _) in stored.items()} == {
        pk: key for pk, (_, key) in keys.items() if key is not None}
    assert not any(is_stale for _, is_stale in stored.values())
    return {key[0] for key, _ in stored.values()}


def _step(project: Any, rng: random.Random, tmp_path: Path, n: int) -> None:
    case_id = rng.choice(CASES)
    action = rng.choice(["submit", "submit_both", "submit_both", "reopen", "decide", "decide",
                         "reopen_decision", "green_light", "settle", "settle", "exclude",
                         "reinstate", "new_version"])
    if action == "submit":
        submit(project, rng.choice(["a1", "a2"]), case_id, rng.choice(LABELS))
    elif action == "submit_both":  # the case enters review (unless one already submitted)
        for name in ("a1", "a2"):
            try:
                submit(project, name, case_id, rng.choice(LABELS))
            except AnnotatorError:
                pass
    elif action == "reopen":
        annotating.reopen(project, rng.choice(["a1", "a2"]), case_id)
    elif action in ("decide", "reopen_decision"):
        items = list_items(project, "adj", case_ids=[case_id], include_auto=True)
        if not items:
            return
        item = rng.choice(items)
        if action == "reopen_decision":
            reopen.reopen_decision(project, "adj", case_id, item.key, "second look")
            return
        letters = [k for k, v in item.values.items() if v is not None]
        if letters:
            decide_value(project, "adj", case_id, item.key, rng.choice(letters), "protocol",
                         "seen")
    elif action == "green_light":
        decisions.green_light(project, "adj", case_id)
    elif action == "settle":  # every open item decided, then the green light
        for item in list_items(project, "adj", case_ids=[case_id], only_open=True):
            letter = next(k for k, v in sorted(item.values.items()) if v is not None)
            decide_value(project, "adj", case_id, item.key, letter, "protocol", "seen")
        decisions.green_light(project, "adj", case_id)
    elif action == "exclude":
        decisions.exclude(project, "adj", case_id, "contradictory figures")
    elif action == "reinstate":
        reopen.reinstate(project, "adj", case_id, "back in")
    else:  # a fixed draft: a new version of the case, its annotations sent back
        changed = make_case(case_id, case_title=f"Fixed title {n}")
        import_cases(project, "cu", [write_case_file(tmp_path / f"fix{n}", [changed])],
                     new_version=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kept_keys_equal_a_recomputation_after_every_step(  # type: ignore[no-untyped-def]
    team, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    done, groups = 0, set()
    for n in range(60):
        try:
            _step(team, rng, tmp_path, n)
            done += 1
        except AnnotatorError:
            pass  # refused (no open item, blockers, wrong state): nothing written
        groups |= _check(team)
    assert done >= 20
    assert len(groups) >= 4  # the sequence moved cases through several parts of the queue
    # The queue read from the keys is the queue recomputed (and in its order).
    whole = case_queue(team, "adj")
    assert [(key_of(e), e.case_id) for e in whole] == sorted(
        (key_of(e), e.case_id) for e in whole)


def test_a_stale_mark_is_recomputed_by_the_next_queue_read(team) -> None:  # type: ignore[no-untyped-def]
    for case_id in ("K1", "K3"):
        submit(team, "a1", case_id, {"importance:Figure 3": chose("essential")})
        submit(team, "a2", case_id)
    whole = case_queue(team, "adj")
    with team.tx() as session:  # what an annotator's write on a walled store leaves
        pks = sorted(session.scalars(select(Case.id).where(Case.case_id.in_(["K1", "K3"]))))
        session.execute(delete(QueueKey).where(QueueKey.case_pk == pks[0]))  # a key missing
        queue_keys.mark_stale(session.connection(), pks)
    with team.read() as session:
        assert sorted(queue_keys.stale_cases(session.connection())) == pks
    assert case_queue_page(team, "adj").entries == whole
    with team.read() as session:
        assert queue_keys.stale_cases(session.connection()) == []
    _check(team)


def test_repair_finds_and_fixes_a_key_written_past_the_app(team) -> None:  # type: ignore[no-untyped-def]
    for name in ("a1", "a2"):
        submit(team, name, "K2", {"difficulty": chose("hard")} if name == "a1" else {})
    if _walled_writes(team):
        case_queue_page(team, "adj")  # the senior's read computes what the annotators marked
    assert repair_queue_keys(team, "cu", dry_run=True) == []
    with team.tx() as session:
        session.execute(update(QueueKey).values(impact=99))
    drifted = repair_queue_keys(team, "cu", dry_run=True)
    assert [d.case_id for d in drifted] == ["K2"]
    assert repair_queue_keys(team, "cu") == drifted
    assert repair_queue_keys(team, "cu", dry_run=True) == []
    _check(team)


def test_repair_finds_and_fixes_totals_written_past_the_triggers(team) -> None:  # type: ignore[no-untyped-def]
    for name in ("a1", "a2"):
        submit(team, name, "K2", {"difficulty": chose("hard")} if name == "a1" else {})
    if _walled_writes(team):
        case_queue_page(team, "adj")
    with team.read() as session:
        kept = queue_keys.totals(session.connection())
    assert kept and repair_queue_keys(team, "cu", dry_run=True) == []
    with team.tx() as session:  # a write past the triggers (a manual edit, an odd restore)
        session.execute(update(QueueTotal).values(cases=QueueTotal.cases + 5))
    drifted = repair_queue_keys(team, "cu", dry_run=True)
    assert [(d.case_id, d.actual) for d in drifted] == [
        (TOTALS_ROW, "; ".join(f"group {g}: {n} cases, {o} open"
                               for g, (n, o) in sorted(kept.items())))]
    assert repair_queue_keys(team, "cu") == drifted
    assert repair_queue_keys(team, "cu", dry_run=True) == []
    with team.read() as session:
        assert queue_keys.totals(session.connection()) == kept
