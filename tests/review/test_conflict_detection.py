"""Conflicts recorded when a case enters review, auto-resolutions, letters and the queue."""

from __future__ import annotations

from review_support import chose, submit
from sqlalchemy import select

from annotator.services import annotating, kinds
from annotator.services.review import base, decisions
from annotator.services.review.queue import case_queue, list_items, review_status
from annotator.services.review.view import case_detail
from annotator.services.users import add_user
from annotator.store.history import entries
from annotator.store.schema import Case, DetectedItem, ReviewerLetter, User


def _letter_of(project, case_id: str, name: str) -> str:  # type: ignore[no-untyped-def]
    with project.tx() as session:
        case = session.scalars(select(Case).where(Case.case_id == case_id)).one()
        user = session.scalars(select(User).where(User.name == name)).one()
        return session.scalars(
            select(ReviewerLetter.letter).where(
                ReviewerLetter.case_pk == case.id, ReviewerLetter.annotator_id == user.id
            )
        ).one()


def test_conflicts_exactly_where_annotators_differ(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T1", {"meta:Figure 1/acquisition": "T2"})
    state = submit(
        duo,
        "a2",
        "T1",
        {
            "importance:Figure 3": chose("essential"),
            "stage:Figure 3": chose(3),  # the draft ties Figure 2 and 3
            "meta:Figure 1/acquisition": "T2-weighted",  # no conflict after normalising
            "meta:Figure 2/contrast": "No contrast",  # the matcher reads this differently
        },
    )
    assert state == "in_review"
    items = {i.key: i for i in list_items(duo, "adj", include_auto=True)}
    conflicts = {k: i.disagreement for k, i in items.items() if i.kind == "conflict"}
    assert conflicts == {
        "importance:Figure 3": "essential_vs_optional",
        "order": "tie_vs_strict",
        "meta:Figure 2/contrast": "metadata",
    }
    auto = {k for k, i in items.items() if i.kind == "auto_resolved"}
    assert {"importance:Figure 1", "difficulty", "rarity", "discard"} <= auto
    assert "meta:Figure 1/acquisition" in auto
    # the queue shows the most important conflict first
    assert [i.key for i in list_items(duo, "adj")][0] == "importance:Figure 3"
    b = _letter_of(duo, "T1", "a2")
    assert items["importance:Figure 3"].values[b] == "essential"


def test_detection_is_recorded_once_with_auto_resolutions(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T1")
    submit(duo, "a2", "T1", {"difficulty": chose("normal")})
    list_items(duo, "adj")
    list_items(duo, "adj")  # a second read records nothing new
    with duo.tx() as session:
        detected = [e for e in entries(session) if e.action == "review_detected"]
        rows = list(session.scalars(select(DetectedItem)))
    assert len(detected) == 1 and detected[0].actor == "(auto)"
    assert detected[0].after["conflicts"] == {"difficulty": "normal_vs_hard"}
    assert "importance:Figure 1" in detected[0].after["auto_resolutions"]
    assert sum(r.kind == "conflict" for r in rows) == 1


def test_unanimous_items_auto_resolve_and_can_be_overridden(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T1")
    submit(duo, "a2", "T1")
    assert list_items(duo, "adj") == []
    assert base.review_case(duo, "T1").blockers == []
    decisions.decide(duo, "adj", "T1", "rarity", "extreme_rare", "clinical_judgement", "atypical")
    item = next(i for i in list_items(duo, "adj", include_auto=True) if i.key == "rarity")
    assert item.state == "overridden" and item.final == "extreme_rare"
    assert base.review_case(duo, "T1").release["rarity"] == "extreme_rare"
    with duo.tx() as session:
        override = [e for e in entries(session) if e.action == "overridden"]
    assert override[0].before == "rare" and override[0].after == "extreme_rare"
    assert review_status(duo, "adj")["overridden"] == 1


def test_letters_are_stored_and_survive_redetection(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T2")
    submit(duo, "a2", "T2", {"importance:Figure 2": chose("optional")})
    assert [i.key for i in list_items(duo, "adj")] == ["importance:Figure 2"]
    before = {n: _letter_of(duo, "T2", n) for n in ("a1", "a2")}
    assert sorted(before.values()) == ["A", "B"]
    annotating.reopen(duo, "a2", "T2")  # allowed: nothing decided yet
    assert case_queue(duo, "adj") == []  # back in annotating, out of the queue
    annotating.set_label(duo, "a2", "T2", "importance", "Figure 2", "essential")
    kinds.CASES.submit(duo, "a2", "T2")
    assert [i.key for i in list_items(duo, "adj")] == []  # the new round has no conflict
    assert {n: _letter_of(duo, "T2", n) for n in ("a1", "a2")} == before
    with duo.tx() as session:
        rows = list(session.scalars(select(DetectedItem).where(DetectedItem.kind == "conflict")))
    assert [r.superseded for r in rows] == [True]


def test_case_detail_shows_every_note_even_without_conflicts(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T3", {"comment": "Classic", "red_flag:Figure 2": "Wrong patient?"})
    submit(duo, "a2", "T3", {"demography_note": "Age missing", "meta_ok:Figure 1": False})
    detail = case_detail(duo, "T3", viewer="adj")
    a1, a2 = _letter_of(duo, "T3", "a1"), _letter_of(duo, "T3", "a2")
    assert [n.text for n in detail.notes[a1]] == ["Classic", "Wrong patient?"]
    assert {n.kind for n in detail.notes[a2]} == {"demography note", "metadata flagged"}
    assert detail.viewer_block is None
    add_user(duo, "cu", "a1", ["adjudicator"])
    assert "annotated case T3" in (case_detail(duo, "T3", viewer="a1").viewer_block or "")
    assert "adjudicator role" in (case_detail(duo, "T3", viewer="cu").viewer_block or "")


def test_case_queue_orders_cases_by_their_most_important_conflict(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T1")
    submit(duo, "a2", "T1", {"difficulty": chose("normal")})
    submit(duo, "a1", "T2", {"discard": {"reason_code": "leakage", "text": "diagnosis in title"}})
    submit(duo, "a2", "T2")
    submit(duo, "a1", "T3")
    submit(duo, "a2", "T3")
    queue = case_queue(duo, "adj")
    assert [(e.case_id, e.top_disagreement) for e in queue] == [
        ("T2", "discard_vs_keep"),
        ("T1", "normal_vs_hard"),
        ("T3", None),
    ]
    assert queue[2].ready and not queue[0].ready


def test_annotators_and_strangers_cannot_read_other_annotators_work(duo) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from annotator.errors import PermissionDenied
    from annotator.services.review.actions import item_values
    from annotator.services.review.queue import case_entry

    submit(duo, "a1", "T1", {"comment": "Looks like MS to me"})
    submit(duo, "a2", "T1", {"difficulty": chose("normal")})
    reads = [
        lambda who: list_items(duo, who, include_auto=True),
        lambda who: review_status(duo, who),
        lambda who: case_queue(duo, who),
        lambda who: case_entry(duo, who, "T1"),
        lambda who: case_detail(duo, "T1", who),
        lambda who: item_values(duo, who, "T1", "difficulty"),
    ]
    for read in reads:
        for who in ("a1", "a2", "nobody", ""):
            with pytest.raises(PermissionDenied):
                read(who)
        assert read("adj") is not None and read("cu") is not None
    notes = case_detail(duo, "T1", "cu").notes
    assert any(n.text == "Looks like MS to me" for ns in notes.values() for n in ns)
