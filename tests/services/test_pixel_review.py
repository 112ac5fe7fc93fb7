"""Redaction on both back ends: the new bytes replace the old in every case holding the
image, the unredacted bytes leave the store, the history names the curator."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from annotator.bench.text_images import text_image
from annotator.errors import NotFound
from annotator.services import pixel_review
from annotator.services.imports import import_cases
from annotator.store.history import entries
from annotator.store.project import Project
from annotator.store.schema import CaseImage, ImageBlob, ImageTextCheck
from factories import make_case, write_case_file

TEXT = text_image(16)


def _drafts(folder: Path) -> Path:
    path = write_case_file(folder, [make_case("A1"), make_case("A2")])
    (folder / "img" / "f1.png").write_bytes(TEXT.data)
    return path


def test_redaction_replaces_the_bytes_everywhere_and_drops_the_old(team: Project,
                                                                  tmp_path: Path) -> None:
    report = import_cases(team, "cu", [_drafts(tmp_path / "d")])
    assert {o.case_id: o.flagged_images for o in report.outcomes} == {"A1": 1, "A2": 1}
    with team.read() as session:
        old = session.scalars(CaseImage.__table__.select().with_only_columns(
            CaseImage.sha256).where(CaseImage.draft_path == "img/f1.png")).first()
        assert session.get(ImageTextCheck, old).boxes  # type: ignore[union-attr]
    x, y, w, h = TEXT.planted[0].box
    new = pixel_review.redact(team, "cu", "A1", "img/f1.png", [(x - 2, y - 2, w + 4, h + 4)])
    with team.read() as session:
        assert session.get(ImageBlob, old) is None
        shas = set(session.scalars(CaseImage.__table__.select().with_only_columns(
            CaseImage.sha256).where(CaseImage.draft_path == "img/f1.png")))
        assert shas == {new}
        pixels = np.asarray(Image.open(io.BytesIO(team.images.get(session, new))))
        assert pixels[y:y + h, x:x + w].max() == 0
        logged = entries(session, action="image_redacted")
    assert len(logged) == 2 and {e.actor for e in logged} == {"cu"}
    statuses = {r.case_id: r.status for r in pixel_review.list_images(team, "cu")
                if r.draft_path == "img/f1.png"}
    assert statuses == {"A1": "redacted", "A2": "redacted"}


def test_only_curators_redact_and_bad_input_is_one_line(team: Project, tmp_path: Path) -> None:
    import_cases(team, "cu", [_drafts(tmp_path / "d")])
    with pytest.raises(Exception, match="curator"):
        pixel_review.redact(team, "a1", "A1", "img/f1.png", [(0, 0, 5, 5)])
    with pytest.raises(NotFound, match="has no image"):
        pixel_review.redact(team, "cu", "A1", "img/nope.png", [(0, 0, 5, 5)])
    with pytest.raises(pixel_review.RedactionError, match="outside"):
        pixel_review.redact(team, "cu", "A1", "img/f1.png", [(5000, 0, 5, 5)])
    with pytest.raises(pixel_review.RedactionError, match="four whole numbers"):
        pixel_review.parse_box("1,2,3")


@pytest.mark.parametrize("index", [6, 7, 2])  # 16-bit MR 3 frames, 8-bit CT 3 frames, 16-bit CT
def test_dicom_redaction_blacks_out_every_frame_and_keeps_the_header(index: int) -> None:
    from annotator.imaging.decode import decode_frame
    from annotator.ingest.deidentify import read_dicom

    image = text_image(index)
    box = (10, 20, 60, 30)
    out, media_type = pixel_review.burn_boxes(image.data, [box], name=image.name)
    assert media_type == "application/dicom"
    before, after = read_dicom(image.data), read_dicom(out)
    assert [e.keyword for e in before if e.keyword != "PixelData"] == [
        e.keyword for e in after if e.keyword != "PixelData"]
    frames = decode_frame(out, 0).frames
    for frame in range(frames):
        raw = after.pixel_array if frames == 1 else after.pixel_array[frame]
        assert raw[20:50, 10:70].max() == 0
        assert decode_frame(out, frame).array.shape == decode_frame(image.data, frame).array.shape


def test_a_compressed_dicom_kept_as_imported_is_written_native() -> None:
    from pydicom.data import get_testdata_file

    from annotator.ingest.deidentify import read_dicom

    data = Path(get_testdata_file("MR_small_RLE.dcm", download=False)).read_bytes()
    out, _ = pixel_review.burn_boxes(data, [(0, 0, 8, 8)], name="rle")
    ds = read_dicom(out)
    assert not ds.file_meta.TransferSyntaxUID.is_compressed
    bits = int(ds.BitsStored)
    assert ds.pixel_array[:8, :8].tolist() == [[-(1 << (bits - 1))] * 8] * 8  # signed: black


def test_a_redacted_image_imported_again_in_a_new_case_stays_redacted(team: Project,
                                                                      tmp_path: Path) -> None:
    import_cases(team, "cu", [_drafts(tmp_path / "d")])
    with team.read() as session:
        original = session.scalars(CaseImage.__table__.select().with_only_columns(
            CaseImage.sha256).where(CaseImage.draft_path == "img/f1.png")).first()
    assert len(pixel_review.accept_suggested(team, "cu").redacted) == 1
    later = import_cases(team, "cu", [_drafts_named(tmp_path / "e", "A3")])
    assert [o.flagged_images for o in later.outcomes] == [0]
    statuses = {r.case_id: r.status for r in pixel_review.list_images(team, "cu")
                if r.draft_path == "img/f1.png"}
    assert statuses == {"A1": "redacted", "A2": "redacted", "A3": "redacted"}
    with team.read() as session:
        assert session.get(ImageBlob, original) is None  # never stored again


def _drafts_named(folder: Path, case_id: str) -> Path:
    path = write_case_file(folder, [make_case(case_id)])
    (folder / "img" / "f1.png").write_bytes(TEXT.data)
    return path


def test_a_box_on_one_frame_leaves_the_other_frames_alone() -> None:
    from annotator.ingest.deidentify import read_dicom

    image = text_image(6)  # 16-bit MR, three frames
    out, _ = pixel_review.burn_boxes(image.data, [(10, 20, 60, 30)], name=image.name, frame=1)
    before, after = read_dicom(image.data).pixel_array, read_dicom(out).pixel_array
    assert after[1, 20:50, 10:70].max() == 0
    assert np.array_equal(after[0], before[0]) and np.array_equal(after[2], before[2])
    with pytest.raises(pixel_review.RedactionError, match="no frame 3"):
        pixel_review.burn_boxes(image.data, [(0, 0, 4, 4)], name=image.name, frame=3)
    with pytest.raises(pixel_review.RedactionError, match="one frame"):
        pixel_review.burn_boxes(TEXT.data, [(0, 0, 4, 4)], name="png", frame=2)


def _series_drafts(folder: Path) -> Path:
    from annotator.bench.text_images import _dicom

    case = make_case("S1")
    exams = case["imaging_examinations"]
    exams[0]["image_paths"] = ["img/s1.dcm", "img/s2.dcm"]
    exams[1]["image_paths"] = ["img/other.dcm"]
    path = write_case_file(folder, [case])
    rng = np.random.default_rng(5)
    for name, index in (("s1", 900), ("s2", 900), ("other", 901)):  # s1, s2: one series
        stack = rng.random((1, 64, 80))
        (folder / "img" / f"{name}.dcm").write_bytes(_dicom(stack, "MR", 16, index))
    return path


def test_the_same_boxes_go_on_every_image_of_the_series(project: Project,
                                                        tmp_path: Path) -> None:
    from annotator.services.users import add_user

    add_user(project, "(setup)", "cu", ["curator"])
    import_cases(project, "cu", [_series_drafts(tmp_path / "d")])
    assert pixel_review.series_images(project, "cu", "S1", "img/s1.dcm") == ["img/s2.dcm"]
    assert pixel_review.series_images(project, "cu", "S1", "img/other.dcm") == []


def test_backups_made_before_a_redaction_are_offered_and_dropped(tmp_path: Path) -> None:
    import os
    import time

    from annotator.services.users import add_user
    from annotator.store.history import entries
    from annotator.store.project import open_project

    project = open_project(str(tmp_path / "p"))
    add_user(project, "(setup)", "cu", ["curator"])
    import_cases(project, "cu", [_drafts(tmp_path / "d")])
    assert project.folder is not None
    backups = project.folder / "backups"
    backups.mkdir(exist_ok=True)
    old = backups / "auto-20200101-000000.sqlite"
    old.write_bytes(b"old")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert pixel_review.backups_before_redaction(project, "cu") == []  # nothing redacted yet
    pixel_review.accept_suggested(project, "cu")
    newer = backups / "auto-29990101-000000.sqlite"
    newer.write_bytes(b"new")
    os.utime(newer, (time.time() + 3600, time.time() + 3600))
    assert [b.path for b in pixel_review.backups_before_redaction(project, "cu")] == [old]
    with pytest.raises(Exception, match="not a user"):
        pixel_review.drop_backups_before_redaction(project, "nobody")
    assert [b.path for b in pixel_review.drop_backups_before_redaction(project, "cu")] == [old]
    assert not old.exists() and newer.exists()
    with project.read() as session:
        assert [e.after for e in entries(session, action="backups_dropped")] == [
            {"files": [old.name]}]
    project.close()
