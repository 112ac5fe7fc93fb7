"""``validate`` accepts a fresh export and names each broken thing in a damaged copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import annotator.cli
from annotator.export.validate import validate_release


@pytest.fixture
def copy(exported: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(exported, target)
    return target


def _edit_release(folder: Path, change: Any) -> None:
    path = folder / "release.json"
    cases = json.loads(path.read_text("utf-8"))
    change(cases)
    path.write_text(json.dumps(cases, indent=1), encoding="utf-8")


def test_a_changed_image_byte_is_caught(copy: Path) -> None:
    image = copy / "images/R1/figure_1-1.png"
    data = bytearray(image.read_bytes())
    data[-20] ^= 0xFF
    image.write_bytes(bytes(data))
    problems = validate_release(copy)
    assert "MANIFEST.sha256: images/R1/figure_1-1.png does not match its SHA-256" in problems
    assert "images.csv: line 2: images/R1/figure_1-1.png does not match its SHA-256" in problems


def test_a_string_preferred_order_is_caught(copy: Path) -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[0]["imaging_examinations"][1]["preferred_order"] = "2"

    _edit_release(copy, change)
    problems = validate_release(copy)
    assert ("release.json: case R1: imaging_examinations[1].preferred_order: Input should be a"
            " valid integer") in problems


def test_a_float_or_boolean_stage_is_caught(copy: Path) -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[0]["imaging_examinations"][0]["preferred_order"] = 1.0
        cases[0]["imaging_examinations"][1]["preferred_order"] = True

    _edit_release(copy, change)
    problems = [p for p in validate_release(copy) if "preferred_order" in p]
    assert len(problems) == 2


def test_a_step_naming_no_exam_is_caught(copy: Path) -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[0]["diagnostic_steps"][0]["source"] = "Fig. 1"

    _edit_release(copy, change)
    problems = validate_release(copy)
    assert "release.json: case R1: diagnostic_steps[0].source: 'Fig. 1' names no exam" in problems
    assert "release.json: case R1: Figure 1: 0 diagnostic steps (exactly one per exam)" in problems


def test_a_missing_image_is_caught(copy: Path) -> None:
    (copy / "images/R1/figure_2-1.png").unlink()
    problems = validate_release(copy)
    assert "release.json: case R1: image images/R1/figure_2-1.png is missing" in problems
    assert "MANIFEST.sha256: images/R1/figure_2-1.png is listed but missing" in problems


def test_a_path_outside_the_case_folder_is_caught(copy: Path) -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[0]["images"][0]["path"] = "images/R2/figure_1-1.png"

    _edit_release(copy, change)
    problems = validate_release(copy)
    assert ("release.json: case R1: image path 'images/R2/figure_1-1.png' is not under images/R1/"
            in problems)


def test_card_counts_that_drifted_are_caught(copy: Path) -> None:
    card = copy / "BENCHMARK_CARD.md"
    card.write_text(card.read_text("utf-8").replace("| Released cases | 3 |",
                                                     "| Released cases | 4 |"), "utf-8")
    problems = validate_release(copy)
    assert "BENCHMARK_CARD.md: Released cases is 4, release.json has 3" in problems
    assert "croissant.json: BENCHMARK_CARD.md does not match its SHA-256" in problems


def test_the_validate_command_exits_by_result(
    exported: Path, copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert annotator.cli.main(["validate", str(exported)]) == 0
    assert "valid release" in capsys.readouterr().out
    (copy / "images/R1/figure_2-1.png").unlink()
    assert annotator.cli.main(["validate", str(copy)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "release.json: case R1: image images/R1/figure_2-1.png is missing" in lines
    assert annotator.cli.main(["validate", str(copy / "nowhere")]) == 1


def test_malformed_releases_give_problems_not_tracebacks(exported: Path, tmp_path: Path) -> None:
    import os
    import shutil

    from annotator.export.validate import validate_release

    def mutant(name: str) -> Path:
        folder = tmp_path / name
        shutil.copytree(exported, folder)
        return folder

    deep = mutant("deep")
    (deep / "release.json").write_text("[" * 100_000 + "]" * 100_000)
    assert any("release.json: not valid JSON" in p for p in validate_release(deep))
    card = mutant("card")
    (card / "BENCHMARK_CARD.md").write_bytes(b"\xff\xfe not text")
    assert any("BENCHMARK_CARD.md: not UTF-8" in p for p in validate_release(card))
    folder = mutant("folder")
    (folder / "MANIFEST.sha256").unlink()
    (folder / "MANIFEST.sha256").mkdir()
    assert "MANIFEST.sha256: is not a regular file" in validate_release(folder)
    link = mutant("link")
    image = next((link / "images").rglob("*.png"))
    image.unlink()
    image.symlink_to("/etc/hostname")
    rel = image.relative_to(link).as_posix()
    assert f"{rel}: is a symlink; a release holds regular files only" in validate_release(link)
    fifo = mutant("fifo")
    image = next((fifo / "images").rglob("*.png"))
    image.unlink()
    os.mkfifo(image)  # reading it would block forever
    assert any("is not a regular file" in p for p in validate_release(fifo))
    outside = mutant("outside")
    (outside / "images.csv").write_text("path,sha256\n../../../../etc/hostname,x\n")
    assert any("is not inside the release" in p for p in validate_release(outside))
