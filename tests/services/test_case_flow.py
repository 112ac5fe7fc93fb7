"""The state model end to end through the services, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.domain.labels import LabelEdit
from annotator.errors import PermissionDenied, StateError
from annotator.services import annotating, kinds
from annotator.services.assignments import assign, reassign
from annotator.services.imports import import_cases
from annotator.services.review import base, decisions
from annotator.services.status import project_status
from annotator.store.history import entries
from factories import make_case, write_case_file


def _annotators(project, case_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    names = []
    for name in ("a1", "a2", "a3"):
        try:
            annotating.view(project, name, case_id)
            names.append(name)
        except Exception:
            pass
    return names


@pytest.fixture
def imported(team, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = write_case_file(tmp_path / "drafts", [make_case("T1"), make_case("T2")])
    report = import_cases(team, "cu", [path])
    assert [o.status for o in report.outcomes] == ["added", "added"]
    assign(team, "cu", 2)
    return team


def test_assignment_is_balanced_and_blind(imported) -> None:  # type: ignore[no-untyped-def]
    per = {n: 0 for n in ("a1", "a2", "a3")}
    for case_id in ("T1", "T2"):
        names = _annotators(imported, case_id)
        assert len(names) == 2
        for n in names:
            per[n] += 1
    assert sorted(per.values()) == [1, 1, 2]
    # the adjudicator (no annotator role) is never assigned
    with pytest.raises(Exception, match="not assigned"):
        annotating.view(imported, "adj", "T1")


def test_untouched_case_cannot_be_submitted(imported) -> None:  # type: ignore[no-untyped-def]
    name = _annotators(imported, "T1")[0]
    with pytest.raises(StateError, match="nothing has been labelled"):
        kinds.CASES.submit(imported, name, "T1")


def test_suggestions_are_not_labels_until_accepted(imported) -> None:  # type: ignore[no-untyped-def]
    name = _annotators(imported, "T1")[0]
    view = annotating.view(imported, name, "T1")
    assert view.suggestions["importance:Figure 1"] == "essential"
    assert view.labels == {}
    annotating.set_label(imported, name, "T1", "comment", "", "looked at it")
    with pytest.raises(StateError, match="Figure 1: no importance"):
        kinds.CASES.submit(imported, name, "T1")
    annotating.accept_suggestions(imported, name, "T1", keys=["importance:Figure 1"])
    labels = annotating.view(imported, name, "T1").labels
    assert labels["importance:Figure 1"] == {"value": "essential", "how": "accepted"}
    assert "importance:Figure 2" not in labels


def _complete(project, name: str, case_id: str, **overrides: str) -> None:  # type: ignore[no-untyped-def]
    annotating.accept_suggestions(project, name, case_id)
    edits = [
        LabelEdit(f"importance:{fig}", {"value": v, "how": "set"}) for fig, v in overrides.items()
    ]
    if edits:
        kinds.CASES.set_fields(project, name, case_id, edits)
    kinds.CASES.submit(project, name, case_id)


def test_full_flow_review_green_light_and_revocation(imported) -> None:  # type: ignore[no-untyped-def]
    a, b = _annotators(imported, "T1")
    _complete(imported, a, "T1")
    assert project_status(imported)["in_review"] == 0
    _complete(imported, b, "T1", **{"Figure 3": "essential"})
    status = project_status(imported)
    assert status["in_review"] == 1 and status["annotations_submitted"] == 2

    state = base.review_case(imported, "T1")
    assert [item.key for item in state.final.open] == ["importance:Figure 3"]
    with pytest.raises(StateError, match="open conflict: importance:Figure 3"):
        decisions.green_light(imported, "adj", "T1")
    # an annotator may reopen before the first decision; the case returns to annotating
    assert annotating.reopen(imported, b, "T1") == "annotating"
    kinds.CASES.submit(imported, b, "T1")

    decisions.decide(
        imported,
        "adj",
        "T1",
        "importance:Figure 3",
        "optional",
        "clinical_judgement",
        "FLAIR of the brain does not change the workup",
    )
    with pytest.raises(StateError, match="locked"):
        annotating.reopen(imported, a, "T1")
    result = decisions.green_light(imported, "adj", "T1")
    assert result.state == "green_lit"
    steps = result.release["diagnostic_steps"]
    assert [s["essential"] for s in steps] == ["essential", "essential", "optional"]
    assert project_status(imported)["green_lit"] == 1

    # a later decision change revokes the green light
    decisions.decide(imported, "adj", "T1", "importance:Figure 3", "unnecessary", "protocol")
    assert base.review_case(imported, "T1").state == "in_review"
    with imported.tx() as session:
        actions = [e.action for e in entries(session)]
    assert "green_light_revoked" in actions and actions.count("adjudicated") == 2


def test_permissions_by_role(imported) -> None:  # type: ignore[no-untyped-def]
    a, b = _annotators(imported, "T1")
    with pytest.raises(PermissionDenied, match="curator"):
        assign(imported, a, 2)
    with pytest.raises(PermissionDenied, match="curator"):
        import_cases(imported, a, [])
    _complete(imported, a, "T1")
    _complete(imported, b, "T1")
    with pytest.raises(PermissionDenied, match="adjudicator"):
        decisions.green_light(imported, a, "T1")


def test_nobody_adjudicates_their_own_case(imported) -> None:  # type: ignore[no-untyped-def]
    from annotator.services.users import add_user

    a, b = _annotators(imported, "T1")
    add_user(imported, "cu", a, ["adjudicator"])
    _complete(imported, a, "T1")
    _complete(imported, b, "T1")
    with pytest.raises(PermissionDenied, match="annotated case T1"):
        decisions.green_light(imported, a, "T1")


def test_discard_upheld_excludes_the_case(imported) -> None:  # type: ignore[no-untyped-def]
    a, b = _annotators(imported, "T2")
    annotating.set_label(
        imported, a, "T2", "discard", "", {"reason_code": "image_quality", "text": "blurred"}
    )
    kinds.CASES.submit(imported, a, "T2")
    _complete(imported, b, "T2")
    state = base.review_case(imported, "T2")
    assert [i.key for i in state.final.open] == ["discard"]
    decisions.decide(
        imported, "adj", "T2", "discard", {"reason_code": "image_quality", "text": "x"}, "protocol"
    )
    assert project_status(imported)["excluded"] == 1
    with pytest.raises(StateError):
        decisions.green_light(imported, "adj", "T2")


def test_new_version_sends_annotations_back_for_recheck(imported, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    a, b = _annotators(imported, "T1")
    _complete(imported, a, "T1")
    changed = make_case("T1", clinical_history="Revised history after source correction.")
    path = write_case_file(tmp_path / "v2", changed)
    refused = import_cases(imported, "cu", [path])
    assert refused.outcomes[0].status == "refused" and "--new-version" in refused.outcomes[0].reason
    report = import_cases(imported, "cu", [path], new_version=True)
    assert report.outcomes[0].status == "new_version"
    view = annotating.view(imported, a, "T1")
    assert view.state == "in_progress" and view.needs_recheck
    assert view.content["clinical_history"] == "Revised history after source correction."


def test_reassign_moves_open_cases_and_keeps_work(imported) -> None:  # type: ignore[no-untyped-def]
    a = _annotators(imported, "T1")[0]
    annotating.set_label(imported, a, "T1", "comment", "", "half done")
    report = reassign(imported, "cu", a)
    assert report.count >= 1
    with pytest.raises(Exception, match="not assigned"):
        annotating.view(imported, a, "T1")
    with imported.tx() as session:
        assert any(e.action == "withdrawn" for e in entries(session))


def test_a_view_stamp_changes_exactly_when_the_view_can(imported, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The annotate page opens a case read ahead only while its stamp is unchanged.
    a, b = _annotators(imported, "T1")

    def still(view: annotating.AnnotationView) -> bool:
        return annotating.view_stamp(imported, a, "T1") == view.stamp

    first = annotating.view(imported, a, "T1")
    assert still(first)
    annotating.set_label(imported, b, "T1", "comment", "", "the other annotator's")
    if a in _annotators(imported, "T2"):
        annotating.set_label(imported, a, "T2", "comment", "", "another case")
    assert still(first)  # nothing of a's view of T1 moved
    annotating.set_label(imported, a, "T1", "comment", "", "mine")
    assert not still(first)
    labelled = annotating.view(imported, a, "T1")
    changed = make_case("T1", clinical_history="Revised history.")
    import_cases(imported, "cu", [write_case_file(tmp_path / "v2", changed)], new_version=True)
    assert not still(labelled)  # a new draft
    redrafted = annotating.view(imported, a, "T1")
    _complete(imported, a, "T1")
    assert not still(redrafted)  # submitted


def test_a_view_and_its_images_are_read_together_as_each_alone(imported, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Opening a case reads both in one transaction; they are what the two reads give.
    from annotator.services import workspace

    a, _ = _annotators(imported, "T1")
    view, images = annotating.view_with_images(imported, a, "T1")
    assert view == annotating.view(imported, a, "T1")
    assert images == workspace.case_images(imported, a, "T1")
    assert images and all(refs for refs in images.values())
    # After a new draft both follow it.
    changed = make_case("T1", clinical_history="Revised history.")
    import_cases(imported, "cu", [write_case_file(tmp_path / "v2", changed)], new_version=True)
    view, images = annotating.view_with_images(imported, a, "T1")
    assert view.content["clinical_history"] == "Revised history."
    assert images == workspace.case_images(imported, a, "T1")
