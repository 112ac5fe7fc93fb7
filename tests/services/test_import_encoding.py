"""A draft imported again is "unchanged" even when the PNG encoder's settings changed.

The stored PNG is re-encoded from the draft's pixels, so its bytes (and the case's content
hash) depend on the zlib settings: a project imported by a version that wrote level 6 must
not see every draft as changed (and every annotated case refused) after a switch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from sqlalchemy import select

from annotator.ingest import deidentify
from annotator.services import annotating
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.store.schema import CaseImage
from factories import make_case, write_case_file


def _scan_like_images(folder: Path) -> None:
    # Noisy pixels, so that two zlib levels give different bytes (flat images may not).
    rng = np.random.default_rng(14)
    for i in (1, 2, 3):
        pixels = rng.integers(0, 40, (48, 64), dtype=np.uint8) + 60 * i
        Image.fromarray(pixels, "L").save(folder / "img" / f"f{i}.png")


def _stored(team: Any) -> dict[str, bytes]:
    with team.read() as session:
        rows = session.scalars(select(CaseImage)).all()
        return {r.draft_path: team.images.get(session, r.sha256) for r in rows}


def test_an_annotated_draft_imported_at_another_png_level_is_unchanged(
    team: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_case_file(tmp_path / "d", make_case("E1"))
    _scan_like_images(path.parent)
    # as an earlier version wrote them
    monkeypatch.setattr(deidentify, "PNG_ENCODER", {"compress_level": 6})
    assert import_cases(team, "cu", [path]).outcomes[0].status == "added"
    before = _stored(team)
    assign(team, "cu", 1)
    annotating.set_label(team, "a1", "E1", "comment", "", "looked at it")

    monkeypatch.undo()  # back to the current settings
    again = deidentify.reencode_raster((path.parent / "img" / "f1.png").read_bytes(), name="f1")
    assert again[0] != before["img/f1.png"]  # the encodings really differ
    report = import_cases(team, "cu", [path])
    assert [o.status for o in report.outcomes] == ["unchanged"]
    assert _stored(team) == before  # nothing rewritten


def test_a_changed_pixel_is_still_a_change(
    team: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_case_file(tmp_path / "d", make_case("E2"))
    _scan_like_images(path.parent)
    monkeypatch.setattr(deidentify, "PNG_ENCODER", {"compress_level": 6})
    import_cases(team, "cu", [path])
    monkeypatch.undo()  # back to the current settings
    image = Image.open(path.parent / "img" / "f2.png")
    image.load()
    image.putpixel((3, 3), (image.getpixel((3, 3)) + 1) % 256)  # type: ignore[operator]
    image.save(path.parent / "img" / "f2.png")
    report = import_cases(team, "cu", [path])
    assert [o.status for o in report.outcomes] == ["updated"]
