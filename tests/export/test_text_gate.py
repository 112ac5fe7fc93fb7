"""The privacy gate's text verdicts: reused only for the same bytes and the same detector.

A verdict kept from an earlier check (import's, or an earlier export's) spares reading the
image again; a changed image or a changed detector (its code or Tesseract) is read afresh,
so a stale "clean" never lets text through (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from annotator.bench.text_images import text_image
from annotator.export import text_gate
from annotator.export.text_gate import TextVerdicts
from annotator.imaging import burned_text
from annotator.ingest.pixel_text import check_pixels

TEXT = text_image(16).data  # a PNG with two made-up identifiers burned in
CLEAN = text_image(16, with_text=False).data


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[bytes]:
    """The images the detector really reads (a cache hit is not one); a private user cache."""
    burned_text.ocr_version()  # the test needs Tesseract (Debian: tesseract-ocr-eng)
    monkeypatch.setenv("ANNOTATOR_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.setattr(text_gate, "_SEEN", {})  # a fresh process
    seen: list[bytes] = []
    detect: Callable[..., list[burned_text.TextBox]] = burned_text.find_text_in_image

    def counted(data: bytes, **kwargs: object) -> list[burned_text.TextBox]:
        seen.append(data)
        return detect(data, **kwargs)

    monkeypatch.setattr(burned_text, "find_text_in_image", counted)
    return seen


def test_a_verdict_is_reused_for_the_same_bytes_and_detector(
        reads: list[bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "text-verdicts"
    assert TextVerdicts(folder).findings("R1: a.png", TEXT)
    assert not TextVerdicts(folder).findings("R1: b.png", CLEAN)
    assert len(reads) == 2
    again = TextVerdicts(folder)  # a later export
    assert again.findings("R2: a.png", TEXT) and not again.findings("R2: b.png", CLEAN)
    assert len(reads) == 2
    monkeypatch.setattr(text_gate, "_SEEN", {})  # a later process: the folder's verdicts
    assert TextVerdicts(folder).findings("R3: a.png", TEXT)
    assert len(reads) == 2


def test_import_s_check_is_not_read_again_at_export(reads: list[bytes]) -> None:
    assert check_pixels(TEXT, name="a.png").flagged  # import's check of the stored bytes
    assert len(reads) == 1
    assert TextVerdicts(None).findings("R1: a.png", TEXT)  # no folder: a PostgreSQL store
    assert len(reads) == 1


def test_a_changed_detector_reads_the_image_again(reads: list[bytes], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "text-verdicts"
    assert TextVerdicts(folder).findings("R1: a.png", TEXT)
    # A stale "clean" kept by an older detector (or planted) must not let the text through.
    for kept in folder.rglob("*"):
        if kept.is_file():
            kept.write_text("clean", "ascii")
    monkeypatch.setattr(text_gate, "_SEEN", {})  # a later process reads the folder
    assert not TextVerdicts(folder).findings("R1: a.png", TEXT)  # the same detector: kept
    monkeypatch.setattr(burned_text, "detector_version", lambda: "newer-detector")
    assert TextVerdicts(folder).findings("R1: a.png", TEXT)
    assert len(reads) == 2


def test_a_changed_image_is_read_again(reads: list[bytes], tmp_path: Path) -> None:
    folder = tmp_path / "text-verdicts"
    assert not TextVerdicts(folder).findings("R1: a.png", CLEAN)
    assert TextVerdicts(folder).findings("R1: a.png", TEXT)  # same name, other bytes
    assert reads == [CLEAN, TEXT]


def test_a_detector_of_unknown_version_keeps_nothing(reads: list[bytes], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(burned_text, "detector_version", lambda: None)
    folder = tmp_path / "text-verdicts"
    assert TextVerdicts(folder).findings("R1: a.png", TEXT)
    assert TextVerdicts(folder).findings("R1: a.png", TEXT)
    assert len(reads) == 2 and not folder.exists()
