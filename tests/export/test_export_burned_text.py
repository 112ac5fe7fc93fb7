"""Burned-in text end to end: flagged at import, refused at export, redacted by a curator
(attributed, in every case holding the image, unredacted bytes gone), and the privacy
gate's own check of the released pixels."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from annotator.bench.text_images import text_image
from annotator.cli import main
from annotator.export.errors import ExportError
from annotator.export.privacy import PrivacyError
from annotator.services import annotating, kinds, pixel_review
from annotator.services.export import export_release
from annotator.services.imports import import_cases
from annotator.services.review import base, decisions
from annotator.store.history import entries
from annotator.store.project import Project
from annotator.store.schema import CaseImage, ImageBlob
from export.conftest import CURATOR, SENIOR, annotators_of, build, write_drafts

TEXT = text_image(16)  # PNG, 12 px DejaVu, light on dark: two made-up identifiers


def _with_text(folder: Path) -> Path:
    path = write_drafts(folder)
    (folder / "img" / "f1.png").write_bytes(TEXT.data)  # Figure 1 of every case
    return path


@pytest.fixture
def texted(tmp_path: Path) -> Project:
    project = build(str(tmp_path / "p"), tmp_path / "drafts", writer=_with_text)
    yield project
    project.close()


def _release_png(out: Path, case: str) -> np.ndarray:
    rows = (out / "images.csv").read_text().splitlines()
    path = next(r.split(",")[3] for r in rows[1:] if r.startswith(f"{case}/") and
                "Figure 1" in r)
    return np.asarray(Image.open(io.BytesIO((out / path).read_bytes())).convert("L"))


def test_import_flags_and_export_refuses_naming_case_figure_image(texted: Project,
                                                                   tmp_path: Path) -> None:
    rows = pixel_review.list_images(texted, CURATOR)
    flagged = {(r.case_id, r.draft_path) for r in rows if r.status == "flagged"}
    assert ("R1", "img/f1.png") in flagged and ("R2", "img/f1.png") in flagged
    with pytest.raises(ExportError) as caught:
        export_release(texted, CURATOR, tmp_path / "out", version="1.0.0", date="2026-01-01")
    message = str(caught.value)
    assert "case R1, Figure 1, image img/f1.png" in message
    assert not (tmp_path / "out").exists()


def test_accept_suggested_covers_every_planted_string_in_the_release(texted: Project,
                                                                     tmp_path: Path) -> None:
    with texted.read() as session:
        before = session.scalars(CaseImage.__table__.select().with_only_columns(
            CaseImage.sha256).where(CaseImage.draft_path == "img/f1.png")).first()
    report = pixel_review.accept_suggested(texted, CURATOR)
    assert report.redacted and not report.left
    out = tmp_path / "out"
    export_release(texted, CURATOR, out, version="1.0.0", date="2026-01-01")
    for case in ("R1", "R2"):
        pixels = _release_png(out, case)
        for planted in TEXT.planted:
            x, y, w, h = planted.box
            assert pixels[y:y + h, x:x + w].max() == 0, (case, planted.text)
    with texted.read() as session:
        assert session.get(ImageBlob, before) is None  # the unredacted bytes left the store
        shas = set(session.scalars(CaseImage.__table__.select().with_only_columns(
            CaseImage.sha256).where(CaseImage.draft_path == "img/f1.png")))
        assert before not in shas and len(shas) == 1  # every case holding it, one image
        redactions = entries(session, action="image_redacted")
    assert texted.folder is not None
    assert not (texted.folder / "images" / before[:2] / before).exists()
    assert {e.actor for e in redactions} == {CURATOR} and len(redactions) >= 2


def test_reimport_of_the_same_draft_keeps_the_redaction(texted: Project,
                                                         tmp_path: Path) -> None:
    pixel_review.accept_suggested(texted, CURATOR)
    drafts = tmp_path / "again"
    report = import_cases(texted, CURATOR, [_with_text(drafts)])
    assert {o.status for o in report.outcomes} == {"unchanged"}
    assert not [r for r in pixel_review.list_images(texted, CURATOR) if r.unresolved]


def test_no_phi_needs_a_reason_and_resolves(texted: Project, tmp_path: Path) -> None:
    with pytest.raises(pixel_review.RedactionError):
        pixel_review.no_phi(texted, CURATOR, "R1", "img/f1.png", "  ")
    pixel_review.no_phi(texted, CURATOR, "R1", "img/f1.png", "made-up test strings")
    statuses = {(r.case_id, r.draft_path): r.status
                for r in pixel_review.list_images(texted, CURATOR, all_images=True)}
    assert statuses[("R1", "img/f1.png")] == "no_phi"
    assert statuses[("R2", "img/f1.png")] == "no_phi"  # the same bytes: one review


def test_the_gate_finds_text_planted_after_import(tmp_path: Path) -> None:
    project = build(str(tmp_path / "p"), tmp_path / "drafts")
    try:
        assert not [r for r in pixel_review.list_images(project, CURATOR) if r.unresolved]
        with project.read() as session:
            sha = session.scalars(CaseImage.__table__.select().with_only_columns(
                CaseImage.sha256).where(CaseImage.draft_path == "img/f2.png")).first()
        assert project.folder is not None
        (project.folder / "images" / sha[:2] / sha).write_bytes(TEXT.data)  # no finding
        with pytest.raises(PrivacyError) as caught:
            export_release(project, CURATOR, tmp_path / "out", version="1.0.0",
                           date="2026-01-01")
        assert "text in the pixels that no curator reviewed" in str(caught.value)
    finally:
        project.close()


def test_cli_list_json_box_and_errors(texted: Project, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    where = str(texted.folder)
    assert main(["--project", where, "--as", CURATOR, "redact", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert any(r["case_id"] == "R1" and r["status"] == "flagged" for r in listed)
    assert all("text" not in r for r in listed)  # boxes and reasons, never what was read
    assert main(["--project", where, "--as", CURATOR, "redact", "R1", "img/f1.png",
                 "--box", "0,0,4"]) != 0
    assert "X,Y,W,H" in capsys.readouterr().err
    assert main(["--project", where, "--as", CURATOR, "redact", "R1", "img/f1.png",
                 "--box", "0,0,320,40", "--box", "0,120,320,100"]) == 0
    status = {r.draft_path: r.status for r in pixel_review.list_images(texted, CURATOR)
              if r.case_id == "R1"}
    assert status["img/f1.png"] == "redacted"


def test_scan_checks_images_stored_before(texted: Project) -> None:
    with texted.tx() as session:
        session.execute(pixel_review.ImageTextCheck.__table__.delete())
    assert {r.status for r in pixel_review.list_images(texted, CURATOR)} == {"unchecked"}
    assert pixel_review.scan(texted, CURATOR) > 0
    assert "unchecked" not in {r.status for r in pixel_review.list_images(texted, CURATOR,
                                                                           all_images=True)}


def _text_in_h1_only(folder: Path) -> Path:
    path = write_drafts(folder)
    cases = json.loads(path.read_text("utf-8"))
    for case in cases:
        if case["case_id"] == "H1":
            case["imaging_examinations"][0]["image_paths"] = ["img/text.png"]
    path.write_text(json.dumps(cases), "utf-8")
    (folder / "img" / "text.png").write_bytes(TEXT.data)
    return path


def test_bundle_leaves_out_a_case_with_an_unreviewed_image(tmp_path: Path) -> None:
    from annotator.services.sync.bundle import make_bundle
    from export.conftest import annotators_of

    project = build(str(tmp_path / "p"), tmp_path / "drafts", writer=_text_in_h1_only)
    try:
        name = annotators_of(project, "H1")[0]
        result = make_bundle(project, CURATOR, name, tmp_path / "b.annotator-bundle")
        assert "H1" in result.left_out and "img/text.png" in result.left_out["H1"]
        assert "H1" not in result.case_ids and result.case_ids
        pixel_review.no_phi(project, CURATOR, "H1", "img/text.png", "made-up test strings")
        again = make_bundle(project, CURATOR, name, tmp_path / "c.annotator-bundle")
        assert "H1" in again.case_ids and not again.left_out
    finally:
        project.close()


def test_green_light_warns_about_unreviewed_images(tmp_path: Path) -> None:
    project = build(str(tmp_path / "p"), tmp_path / "drafts", writer=_with_text)
    try:
        for name in annotators_of(project, "H1"):
            annotating.accept_suggestions(project, name, "H1")
            kinds.CASES.submit(project, name, "H1")
        for item in base.review_case(project, "H1").final.open:
            decisions.decide(project, SENIOR, "H1", item.key, "optional", "clinical_judgement",
                             "as the draft says")
        review = decisions.green_light(project, SENIOR, "H1")
        assert any("case H1, Figure 1, image img/f1.png" in w for w in review.warnings)
    finally:
        project.close()


def test_an_import_without_the_check_leaves_its_images_unchecked(tmp_path: Path) -> None:
    from annotator.services.users import add_user
    from annotator.store.project import open_project

    project = open_project(str(tmp_path / "p"))
    try:
        add_user(project, "(setup)", CURATOR, ["curator"])
        import_cases(project, CURATOR, [_with_text(tmp_path / "d")], check_pixels=False)
        rows = pixel_review.list_images(project, CURATOR, all_images=True)
        assert rows and {r.status for r in rows} == {"unchecked"}
        assert "never checked" in rows[0].describe()
        pixel_review.scan(project, CURATOR)
        rows = pixel_review.list_images(project, CURATOR, all_images=True)
        assert {r.status for r in rows if r.draft_path == "img/f1.png"} == {"flagged"}
    finally:
        project.close()
