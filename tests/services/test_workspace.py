"""The workspace's Qt-free operations: case list, images, board, fixes, resume, active time."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from annotator.domain.labels import LabelEdit
from annotator.errors import NotFound, ValidationError
from annotator.services import (
    annotating,
    draft_fixes,
    kinds,
    order_board,
    workspace,
    workspace_state,
)
from annotator.services.assignments import assign, reassign
from annotator.services.imports import import_cases
from annotator.services.order_board import Move
from annotator.services.rating.repeats import add_repeats
from annotator.store.repeats import WITH_REPEATS
from annotator.store.schema import RatedWork, utcnow
from factories import make_case, write_case_file

FIGS = ["Figure 1", "Figure 2", "Figure 3"]


@pytest.fixture
def imported(team, tmp_path: Path):  # type: ignore[no-untyped-def]
    cases = [
        make_case("T1"),
        make_case("T2", case_title="Glioma", final_diagnosis="Glioma"),
        make_case("T10"),
    ]
    import_cases(team, "cu", [write_case_file(tmp_path / "drafts", cases)])
    assign(team, "cu", 3)  # everybody annotates everything: simple to reason about
    return team


def _stage(value: int | None, how: str = "set") -> dict[str, object]:
    return {"value": value, "how": how}


def test_case_list_progress_filter_and_search(imported) -> None:  # type: ignore[no-untyped-def]
    listing = workspace.case_list(imported, "a1")
    assert [r.case_id for r in listing.rows] == ["T1", "T2", "T10"]  # numbers sort as numbers
    assert listing.summary == "0 of 3 submitted"
    assert all(r.done == 0 and r.required == 8 and r.state == "assigned" for r in listing.rows)

    annotating.accept_suggestions(imported, "a1", "T1")
    kinds.CASES.submit(imported, "a1", "T1")
    annotating.set_label(imported, "a1", "T2", "importance", "Figure 1", "optional")
    listing = workspace.case_list(imported, "a1")
    by_id = {r.case_id: r for r in listing.rows}
    assert listing.summary == "1 of 3 submitted"
    assert by_id["T1"].progress == 1.0 and by_id["T1"].state == "submitted"
    assert by_id["T2"].done == 1 and by_id["T2"].state == "in_progress"
    assert listing.counts == {
        "all": 3,
        "todo": 2,
        "assigned": 1,
        "in_progress": 1,
        "submitted": 1,
        "recheck": 0,
        "needs_fix": 0,
        "red_flag": 0,
    }
    todo = workspace.case_list(imported, "a1", show="todo")
    assert [r.case_id for r in todo.rows] == ["T2", "T10"]
    assert [r.case_id for r in workspace.case_list(imported, "a1", search="GLIOMA").rows] == ["T2"]
    # blinding: another annotator's progress is their own
    assert workspace.case_list(imported, "a2").summary == "0 of 3 submitted"
    with pytest.raises(ValidationError, match="unknown case filter"):
        workspace.case_list(imported, "a1", show="mine")


def test_case_list_filters_by_modality_red_flag_and_needs_fix(  # type: ignore[no-untyped-def]
    team, tmp_path: Path
) -> None:
    ct = make_case("C1", case_title="CT case")
    ct["imaging_examinations"][0]["meta_info"]["modality"] = "CT"
    broken = make_case("B2")
    broken["imaging_examinations"][1]["meta_info"]["contrast"] = "No contrast"  # a problem
    import_cases(team, "cu", [write_case_file(tmp_path / "drafts", [ct, broken, make_case("M3")])])
    assign(team, "cu", 3)
    annotating.set_label(team, "a1", "M3", "red_flag", "Figure 2", "contraindicated here")
    listing = workspace.case_list(team, "a1")
    assert listing.modalities == ["CT", "MRI"]
    assert {r.case_id: r.modalities for r in listing.rows}["C1"] == ("CT", "MRI")
    ids = lambda **given: [r.case_id for r in workspace.case_list(team, "a1", **given).rows]  # noqa: E731
    assert ids(modality="CT") == ["C1"]
    assert ids(modality="MRI") == ["B2", "C1", "M3"]
    assert ids(show="red_flag") == ["M3"]
    assert ids(show="needs_fix") == ["B2"]
    assert ids(show="needs_fix", modality="CT") == []
    assert workspace.case_list(team, "a2", show="red_flag").rows == []  # a1's flag is a1's own


def test_has_cases_says_what_the_whole_list_would(imported) -> None:  # type: ignore[no-untyped-def]
    for name in ("a1", "a2", "cu"):  # annotators with cases, a curator without any
        listed = workspace.case_list(imported, name).total
        assert workspace.has_cases(imported, name) == (listed > 0)
    assert workspace.has_cases(imported, "a1") and not workspace.has_cases(imported, "cu")


def test_next_open_case_skips_submitted_ones_and_wraps(imported) -> None:  # type: ignore[no-untyped-def]
    annotating.accept_suggestions(imported, "a1", "T2")
    kinds.CASES.submit(imported, "a1", "T2")
    rows = workspace.case_list(imported, "a1").rows  # T1, T2 (submitted), T10
    assert workspace.next_open(rows, "T1") == "T10"  # past the submitted T2
    assert workspace.next_open(rows, "T10") == "T1"  # wraps to the top
    assert workspace.next_open(rows, "T2") == "T10"
    annotating.accept_suggestions(imported, "a1", "T1")
    kinds.CASES.submit(imported, "a1", "T1")
    annotating.accept_suggestions(imported, "a1", "T10")
    kinds.CASES.submit(imported, "a1", "T10")
    assert workspace.next_open(workspace.case_list(imported, "a1").rows, "T10") is None


def test_case_images_in_exam_order_with_bytes(imported) -> None:  # type: ignore[no-untyped-def]
    images = workspace.case_images(imported, "a1", "T1")
    assert list(images) == FIGS
    first = images["Figure 1"][0]
    assert first.draft_path == "img/f1.png" and first.media_type == "image/png"
    assert (first.width, first.height, first.frames) == (32, 24, 1)
    assert workspace.image_bytes(imported, first.sha256).startswith(b"\x89PNG")
    with pytest.raises(NotFound):
        workspace.case_images(imported, "adj", "T1")


def test_default_annotator_prefers_open_work(imported) -> None:  # type: ignore[no-untyped-def]
    assert workspace.annotators(imported) == ["a1", "a2", "a3"]
    annotating.set_label(imported, "a2", "T1", "comment", "", "started")
    assert workspace.default_annotator(imported) == "a2"


def test_board_moves_keep_stages_dense_and_ties() -> None:
    labels = {"stage:Figure 1": _stage(1), "stage:Figure 2": _stage(2, "accepted")}
    sugg = {"stage:Figure 3": 2}
    b = order_board.board(labels, FIGS, sugg)
    assert b.columns == [["Figure 1"], ["Figure 2"]] and b.unplaced == ["Figure 3"]
    assert b.suggested["Figure 3"] == 2
    # a digit joins a column; beyond the last column opens the next one
    assert order_board.move_edits(labels, FIGS, "Figure 3", Move("stage", 9)) == [
        LabelEdit("stage:Figure 3", _stage(3))
    ]
    # tie with the previous exam
    assert order_board.move_edits(labels, FIGS, "Figure 3", Move("tie_previous")) == [
        LabelEdit("stage:Figure 3", _stage(2))
    ]
    # inserting a column before column 1 shifts the others (keeping how they were set)
    edits = order_board.move_edits(labels, FIGS, "Figure 2", Move("new_stage", 1))
    assert edits == [LabelEdit("stage:Figure 1", _stage(2)), LabelEdit("stage:Figure 2", _stage(1))]
    # leaving a column closes it: the stages stay dense
    moved = {"stage:Figure 1": _stage(1), "stage:Figure 2": _stage(2), "stage:Figure 3": _stage(3)}
    assert order_board.move_edits(moved, FIGS, "Figure 2", Move("unranked")) == [
        LabelEdit("stage:Figure 2", _stage(None)),
        LabelEdit("stage:Figure 3", _stage(2)),
    ]
    assert order_board.move_edits(moved, FIGS, "Figure 1", Move("stage", 1)) == []


def test_board_refuses_impossible_moves() -> None:
    with pytest.raises(ValidationError, match="first exam"):
        order_board.move_edits({}, FIGS, "Figure 1", Move("tie_previous"))
    with pytest.raises(ValidationError, match="Figure 1 has no stage"):
        order_board.move_edits({}, FIGS, "Figure 2", Move("tie_previous"))
    with pytest.raises(ValidationError, match="no exam"):
        order_board.move_edits({}, FIGS, "Figure 9", Move("unranked"))


def test_board_moves_apply_through_the_service(imported) -> None:  # type: ignore[no-untyped-def]
    for figure, move in (
        ("Figure 1", Move("stage", 1)),
        ("Figure 2", Move("tie_previous")),
        ("Figure 3", Move("unranked")),
    ):
        labels = annotating.view(imported, "a1", "T1").labels
        edits = order_board.move_edits(labels, FIGS, figure, move)
        kinds.CASES.set_fields(imported, "a1", "T1", edits)
    labels = annotating.view(imported, "a1", "T1").labels
    assert [labels[f"stage:{f}"]["value"] for f in FIGS] == [1, 1, None]


def test_metadata_fix_rules() -> None:
    content = make_case("T1")
    edits = draft_fixes.meta_edits(content, {}, "Figure 1", "contrast", "No contrast")
    assert edits == [
        LabelEdit("meta:Figure 1/contrast", "No contrast"),
        LabelEdit("meta_ok:Figure 1", False),
    ]
    labels = {"meta:Figure 1/contrast": "No contrast"}
    assert "read as WITH contrast" in draft_fixes.meta_warnings(content, labels, "Figure 1")[0]
    # writing back the draft's value removes the fix
    assert draft_fixes.meta_edits(content, labels, "Figure 1", "contrast", "non-contrast") == [
        LabelEdit("meta:Figure 1/contrast", None)
    ]
    assert draft_fixes.meta_edits(content, {}, "Figure 2", "time_past", " 12 ")[0].value == 12
    assert draft_fixes.meta_edits(content, {}, "Figure 2", "time_past", "6") == [
        LabelEdit("meta:Figure 2/time_past", None)
    ]
    assert draft_fixes.parse_time_past("-1.5") == -1.5
    with pytest.raises(ValidationError):
        draft_fixes.meta_edits(content, {}, "Figure 1", "region", "brain")


def test_diagnosis_reference_is_the_final_diagnosis(imported) -> None:  # type: ignore[no-untyped-def]
    content = annotating.view(imported, "a1", "T1").content
    edits = draft_fixes.rubric_edits(content, {}, "Diagnosis", "reference_answer", "NMOSD")
    assert edits == draft_fixes.final_diagnosis_edits(content, "NMOSD")
    kinds.CASES.set_fields(imported, "a1", "T1", edits)
    labels = annotating.view(imported, "a1", "T1").labels
    assert draft_fixes.final_diagnosis(content, labels) == "NMOSD"
    assert draft_fixes.effective(content, labels, draft_fixes.DIAGNOSIS_KEY) == "NMOSD"
    back = draft_fixes.final_diagnosis_edits(content, content["final_diagnosis"])
    assert back == [LabelEdit(draft_fixes.DIAGNOSIS_KEY, None)]
    with pytest.raises(ValidationError):
        draft_fixes.rubric_key("Diagnosis", "reference_answer/Laterality")
    assert draft_fixes.rubric_key("Localisation", "reference_answer/Laterality").endswith(
        "Localisation/reference_answer/Laterality"
    )


def test_step_and_caption_fixes() -> None:
    content = make_case("T1")
    assert draft_fixes.step_edits(content, 1, "step", "Review the post-contrast T1") == [
        LabelEdit("step:1/step", "Review the post-contrast T1")
    ]
    assert draft_fixes.caption_edits(content, "Figure 1", "T2: cord hyperintensity.") == [
        LabelEdit("caption:Figure 1", None)
    ]
    with pytest.raises(ValidationError):
        draft_fixes.step_edits(content, 7, "step", "x")


def test_identity_is_remembered_per_machine_and_project(
    imported,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    folder = tmp_path / "config"
    assert workspace_state.remembered_identity(imported, folder) is None
    workspace_state.remember_identity(imported, "a2", folder)
    assert workspace_state.remembered_identity(imported, folder) == "a2"
    assert workspace_state.config_dir().is_relative_to(Path.home())  # HOME is isolated


def test_resume_state_is_per_user(imported) -> None:  # type: ignore[no-untyped-def]
    assert workspace_state.load_resume(imported, "a1") == {}
    state = {"case_id": "T2", "exam": "Figure 2", "viewer": {"zoom": 2.0, "slice": 3}}
    workspace_state.save_resume(imported, "a1", state)
    assert workspace_state.load_resume(imported, "a1") == state
    assert workspace_state.load_resume(imported, "a2") == {}


def test_active_clock_counts_work_not_absence() -> None:
    clock = workspace_state.ActiveClock(idle_limit=60)
    for now in (0.0, 10.0, 25.0, 400.0, 410.0):  # a long gap at 25 -> 400 is time away
        clock.touch(now)
    assert clock.take() == 35.0
    assert clock.take() == 0.0
    clock.pause()
    clock.touch(500.0)
    assert clock.pending == 0.0


def test_active_time_accumulates_in_the_annotation(imported) -> None:  # type: ignore[no-untyped-def]
    assert workspace_state.add_active_time(imported, "a1", "T1", 0) is None
    workspace_state.add_active_time(imported, "a1", "T1", 30.25)
    workspace_state.add_active_time(imported, "a1", "T1", 12)
    assert annotating.view(imported, "a1", "T1").labels["active_seconds"] == 42.2
    annotating.accept_suggestions(imported, "a1", "T1")
    kinds.CASES.submit(imported, "a1", "T1")
    assert workspace_state.add_active_time(imported, "a1", "T1", 5) is None


def test_case_list_rows_equal_the_loaded_rows_after_edits(  # type: ignore[no-untyped-def]
    imported,
) -> None:
    # The list reads columns and decodes a row's labels only when they changed since it last
    # did (workspace._summaries); case_row reads the whole annotation. They must agree.
    def agree() -> list[workspace.CaseRow]:
        rows = workspace.case_list(imported, "a1").rows
        assert rows == [workspace.case_row(imported, "a1", r.case_id) for r in rows]
        return rows

    first = agree()
    annotating.set_label(imported, "a1", "T2", "importance", "Figure 1", "optional")
    annotating.set_label(imported, "a1", "T2", "red_flag", "Figure 1", "contrast with eGFR 20")
    edited = {r.case_id: r for r in agree()}["T2"]
    assert (edited.done, edited.red_flag) == (1, True)
    annotating.set_label(imported, "a1", "T2", "red_flag", "Figure 1", None)  # off again
    assert {r.case_id: r for r in agree()}["T2"].red_flag is False
    workspace._SUMMARIES.clear()  # read from scratch: the same rows
    assert [r.case_id for r in agree()] == [r.case_id for r in first]


def _built_afresh(project, name: str) -> workspace.CaseList:  # type: ignore[no-untyped-def]
    """``case_list`` with every kept listing (in memory and on disk), label summary and draft
    forgotten (and put back afterwards, so the next call still starts from what was kept)."""
    kept = [dict(c) for c in (workspace._LISTINGS, workspace._SUMMARIES, workspace._DRAFTS)]
    for cache in (workspace._LISTINGS, workspace._SUMMARIES, workspace._DRAFTS):
        cache.clear()
    on_disk = workspace._kept_file
    workspace._kept_file = lambda _project, _user: None  # type: ignore[assignment]
    try:
        return workspace.case_list(project, name)
    finally:
        workspace._kept_file = on_disk  # type: ignore[assignment]
        for cache, saved in zip((workspace._LISTINGS, workspace._SUMMARIES, workspace._DRAFTS),
                                kept, strict=True):
            cache.clear()
            cache.update(saved)  # type: ignore[attr-defined]


def test_the_kept_listing_is_reused_until_a_row_changes(  # type: ignore[no-untyped-def]
    imported, tmp_path: Path,
) -> None:
    # A refresh whose rows did not change filters the listing it kept (workspace._mark);
    # after each kind of write it must equal a list built from scratch.
    def same(name: str = "a1") -> workspace.CaseList:
        listing = workspace.case_list(imported, name)
        assert listing == _built_afresh(imported, name)
        return listing

    same()
    kept = next(iter(workspace._LISTINGS.values()))
    workspace.case_list(imported, "a1", show="todo", search="glioma")
    assert next(iter(workspace._LISTINGS.values())) is kept  # nothing changed: not rebuilt

    annotating.set_label(imported, "a1", "T2", "importance", "Figure 1", "optional")
    assert {r.case_id: r.state for r in same().rows}["T2"] == "in_progress"
    annotating.accept_suggestions(imported, "a1", "T1")
    kinds.CASES.submit(imported, "a1", "T1")
    assert same().submitted == 1
    for name in ("a2", "a3"):  # the case leaves annotating: only its case state moves
        annotating.accept_suggestions(imported, name, "T1")
        kinds.CASES.submit(imported, name, "T1")
    assert {r.case_id: r.case_state for r in same().rows}["T1"] != "annotating"
    # A new draft of T2 moves the rows onto its revision (and asks for a re-check).
    changed = [make_case("T2", case_title="Glioma, revised", final_diagnosis="Glioma")]
    import_cases(imported, "cu", [write_case_file(tmp_path / "new", changed)],
                 new_version=True)
    assert {r.case_id: r.title for r in same().rows}["T2"] == "Glioma, revised"
    # Open cases moved to another annotator leave the list.
    reassign(imported, "cu", "a1", "a2")
    assert [r.case_id for r in same().rows] == ["T1"]
    assert [r.case_id for r in same("a2").rows] == ["T1", "T2", "T10"]


def test_the_kept_listing_follows_a_repeat_falling_due(  # type: ignore[no-untyped-def]
    imported,
) -> None:
    for name in ("a1", "a2", "a3"):
        annotating.accept_suggestions(imported, name, "T1")
        kinds.CASES.submit(imported, name, "T1")
    add_repeats(imported, "cu", "case", 1.0, 3)
    assert {r.case_id: r.state for r in workspace.case_list(imported, "a1").rows}["T1"] == \
        "submitted"
    # Time passes: the repeat is due. No row is written, yet the list must serve it.
    with imported.tx() as session:
        session.execute(update(RatedWork).where(RatedWork.repeat_of.is_not(None))
                        .values(due_at=utcnow() - timedelta(minutes=1))
                        .execution_options(**WITH_REPEATS))
    listing = workspace.case_list(imported, "a1")
    assert {r.case_id: r.state for r in listing.rows}["T1"] == "assigned"
    assert listing == _built_afresh(imported, "a1")


def test_a_new_process_reads_the_listing_kept_on_disk(  # type: ignore[no-untyped-def]
    imported, monkeypatch: pytest.MonkeyPatch,
) -> None:
    if imported.folder is None:
        pytest.skip("a team store has no project folder to keep it in")
    built = workspace.case_list(imported, "a1")
    kept = list((imported.folder / "cache" / "case-lists").glob("*.json"))
    assert len(kept) == 1

    def forget() -> None:  # what a new process starts with
        for cache in (workspace._LISTINGS, workspace._SUMMARIES, workspace._DRAFTS):
            cache.clear()

    forget()
    with monkeypatch.context() as m:  # nothing changed: no row is read
        m.setattr(workspace, "_assigned_columns", lambda _user: pytest.fail("rows read"))
        assert workspace.case_list(imported, "a1") == built
    # A write since: the file's mark is stale, the rows are read again (and kept again).
    annotating.set_label(imported, "a1", "T2", "importance", "Figure 1", "optional")
    forget()
    changed = workspace.case_list(imported, "a1")
    assert changed != built and changed == _built_afresh(imported, "a1")
    # A damaged or foreign file is ignored.
    for text in ("{not json", '{"format": 1, "mark": "x", "rows": []}', "[]"):
        kept[0].write_text(text)
        forget()
        assert workspace.case_list(imported, "a1") == changed


def test_a_list_warmed_up_at_start_is_built_once(  # type: ignore[no-untyped-def]
    imported, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The app builds the list on a thread while it makes its window; the page's first
    read, coming meanwhile, waits for that build and uses it instead of building again."""
    for cache in (workspace._LISTINGS, workspace._SUMMARIES, workspace._DRAFTS):
        cache.clear()
    if imported.folder is not None:
        for kept in (imported.folder / "cache" / "case-lists").glob("*.json"):
            kept.unlink()
    builds: list[str] = []
    go_on, reached = threading.Event(), threading.Event()
    columns, builder = workspace._assigned_columns, workspace._builder

    def held(user_id):  # type: ignore[no-untyped-def]
        builds.append(threading.current_thread().name)
        assert go_on.wait(10)
        return columns(user_id)

    locks: dict[str, object] = {}

    def watched(project, annotator):  # type: ignore[no-untyped-def]
        lock = locks[threading.current_thread().name] = builder(project, annotator)
        if threading.current_thread().name == "page":
            reached.set()
        return lock

    monkeypatch.setattr(workspace, "_assigned_columns", held)
    monkeypatch.setattr(workspace, "_builder", watched)
    warm = workspace.warm_case_list(imported, "a1")
    found: list[workspace.CaseList] = []
    page = threading.Thread(target=lambda: found.append(workspace.case_list(imported, "a1")),
                            name="page")
    page.start()
    assert reached.wait(10)
    assert locks["page"] is locks["case-list-warm-up"]  # the page waits on the same build
    go_on.set()
    warm.join(10)
    page.join(10)
    assert builds == ["case-list-warm-up"]
    monkeypatch.setattr(workspace, "_assigned_columns", columns)
    assert found == [_built_afresh(imported, "a1")]
