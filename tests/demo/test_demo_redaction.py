"""The demo's curator reviewed every image flagged for burned-in text: the made-up name on
demo-007's post-contrast T1 is blacked out in the stored pixels, the rest cleared."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

from annotator.services import pixel_review
from annotator.services.demo import CURATOR, build_demo
from annotator.store.history import entries
from annotator.store.project import open_project


def test_the_demo_opens_with_every_flagged_image_reviewed(tmp_path: Path) -> None:
    build_demo(str(tmp_path / "demo"))
    project = open_project(str(tmp_path / "demo"))
    try:
        rows = pixel_review.list_images(project, CURATOR, all_images=True)
        assert not [r for r in rows if r.unresolved]
        redacted = [r for r in rows if r.status == "redacted"]
        assert [(r.case_id, r.draft_path) for r in redacted] == [
            ("demo-007", "images/demo-007/f4_a.png")]
        assert {r.status for r in rows if r.case_id == "demo-001"
                and r.draft_path.endswith("f4_a.dcm")} == {"no_phi"}  # the ultrasound
        with project.read() as session:
            data = project.images.get(session, redacted[0].sha256)
            assert [e.actor for e in entries(session, action="image_redacted")] == [CURATOR]
        pixels = np.asarray(Image.open(io.BytesIO(data)))
        assert pixels[6:18, 8:160].max() == 0  # where the label was drawn
    finally:
        project.close()
