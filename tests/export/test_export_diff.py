"""``--previous DIR``: what changed since an earlier release, in diff.json and the card."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from annotator.export.errors import ExportError
from annotator.export.validate import validate_release
from annotator.services.export import export_release
from annotator.store.project import Project
from conftest import CURATOR


def test_diff_lists_added_changed_and_image_changes(
    exported: Path, released: Project, tmp_path: Path
) -> None:
    previous = tmp_path / "previous"
    shutil.copytree(exported, previous)
    cases = json.loads((previous / "release.json").read_text("utf-8"))
    r1 = next(c for c in cases if c["case_id"] == "R1")
    r1["imaging_examinations"][0]["preferred_order"] = 5
    r1["diagnostic_steps"][3]["essential"] = "optional"
    cases = [c for c in cases if c["case_id"] != "case 3"]
    (previous / "release.json").write_text(json.dumps(cases), encoding="utf-8")
    out = tmp_path / "v1.1"
    export_release(released, CURATOR, out, version="1.1.0", previous=previous)
    diff = json.loads((out / "diff.json").read_text("utf-8"))
    assert diff["previous_version"] == "1.0.0" and diff["version"] == "1.1.0"
    assert diff["cases_added"] == ["case 3"] and diff["cases_removed"] == []
    assert diff["cases_changed"] == [{
        "case_id": "R1",
        "keys": ["diagnostic_steps", "imaging_examinations"],
        "exams": [
            {"figure": "Figure 1", "changes": {"preferred_order": [5, 1]}},
            {"figure": "Figure 4", "changes": {"essential": ["optional", "unnecessary"]}},
        ],
    }]
    assert diff["images_changed"] == []
    card = (out / "BENCHMARK_CARD.md").read_text("utf-8")
    assert "## Changes since 1.0.0" in card and "Cases added: 1; removed: 0; changed: 1" in card
    assert validate_release(out) == []


def test_previous_must_be_a_release(released: Project, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="no release.json"):
        export_release(released, CURATOR, tmp_path / "out", version="1.0.0", previous=tmp_path)
    assert not (tmp_path / "out").exists()
