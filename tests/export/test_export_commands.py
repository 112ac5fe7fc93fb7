"""``annotator export`` and the card settings service, as a curator and as others."""

from __future__ import annotations

from pathlib import Path

import pytest

import annotator.cli
from annotator.errors import PermissionDenied
from annotator.export.errors import ExportError
from annotator.services.export import card_settings, preflight, save_card_settings
from annotator.store.project import Project
from conftest import CURATOR, PHYSICIANS


def test_export_command_writes_a_valid_release(
    released: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "release"
    argv = ["--project", released.location, "export", "--out", str(out), "--version", "2.0.0",
            "--date", "2026-05-06", "--include-dicom"]
    assert annotator.cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "3 case(s), 10 image(s)" in printed
    assert "excluded   X1: discard upheld: Key image unusable." in printed
    assert "held back  H1: still being annotated" in printed
    assert (out / "dicom/R1/figure_4-1.dcm").read_bytes()[128:132] == b"DICM"
    assert "| Version | 2.0.0 |" in (out / "BENCHMARK_CARD.md").read_text("utf-8")
    assert annotator.cli.main(["validate", str(out)]) == 0


def test_export_of_the_named_cases_only(
    released: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = tmp_path / "cases.txt"
    names.write_text("# the release of one case\nR1\n\nX1\n", encoding="utf-8")
    out = tmp_path / "release"
    argv = ["--project", released.location, "export", "--out", str(out), "--cases", str(names)]
    assert annotator.cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "1 case(s)" in printed and "excluded   X1" in printed
    assert "H1" not in printed  # not named: not read, not listed
    assert annotator.cli.main(["validate", str(out)]) == 0
    names.write_text("R1\nNOPE\n", encoding="utf-8")
    argv[argv.index("--out") + 1] = str(tmp_path / "other")
    assert annotator.cli.main(argv) == 2
    assert "1 named case(s) are not in the project: NOPE" in capsys.readouterr().err


def test_export_command_refuses_bad_input(
    released: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--project", released.location, "export", "--out"]
    assert annotator.cli.main([*base, str(tmp_path / "a"), "--version", "1.0"]) == 2
    assert "not MAJOR.MINOR.PATCH" in capsys.readouterr().err
    assert annotator.cli.main([*base, str(tmp_path / "a"), "--date", "2026-02-30"]) == 2
    assert "not a YYYY-MM-DD date" in capsys.readouterr().err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert annotator.cli.main([*base, str(tmp_path / "full")]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert annotator.cli.main(["--as", PHYSICIANS[0], *base, str(tmp_path / "b")]) == 2
    assert "needs the curator role" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_card_settings_are_project_settings(released: Project) -> None:
    assert card_settings(released).intended_use.startswith("Research evaluation")
    updated = save_card_settings(released, CURATOR, contact="benchmark@example.org",
                                 version="1.4.0")
    assert updated.contact == "benchmark@example.org"
    assert card_settings(released).version == "1.4.0"
    with pytest.raises(ExportError, match="unknown card field"):
        save_card_settings(released, CURATOR, colour="blue")
    with pytest.raises(PermissionDenied):
        save_card_settings(released, PHYSICIANS[0], contact="x")
    save_card_settings(released, CURATOR, contact="", version="0.1.0")


def test_preflight_lists_what_is_released_and_held_back(released: Project) -> None:
    check = preflight(released)
    assert check.released == ["R1", "R2", "case 3"]
    assert [(h.case_id, h.reason) for h in check.held_back] == [("H1", "still being annotated")]
    assert [(h.case_id, h.reason_code) for h in check.excluded] == [("X1", "image_quality")]
    assert check.images == 10
    assert any("no licence" in w for w in check.warnings)
