"""The privacy gate: identifying image metadata and user names stop the export."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from annotator.export.privacy import PrivacyError, dicom_findings, image_findings, name_findings
from annotator.ingest.deidentify import deidentify_dicom
from annotator.services.export import export_release
from annotator.services.review import decisions
from annotator.store.project import Project
from conftest import CURATOR, SENIOR


def _ct_small() -> bytes:
    from pydicom.data import get_testdata_file

    return Path(get_testdata_file("CT_small.dcm", download=False)).read_bytes()


def test_a_dicom_never_de_identified_is_a_finding() -> None:
    found = dicom_findings(_ct_small())
    assert "PatientName is not empty" in found and "PatientID is not empty" in found
    assert any("outside the de-identification profile" in f and "InstitutionName" in f
               for f in found)
    assert "PatientSex is not empty" in found  # type 2, kept empty when present
    cleaned, _ = deidentify_dicom(_ct_small(), seed="s", name="ct")
    assert dicom_findings(cleaned) == []


def test_png_text_chunks_are_findings() -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Jane Patient")
    buffer = io.BytesIO()
    Image.new("L", (4, 4)).save(buffer, format="PNG", pnginfo=info)
    assert image_findings("x.png", buffer.getvalue(), "image/png") == [
        "x.png: PNG 'tEXt' chunk present (only pixel chunks may ship)"]
    clean = io.BytesIO()
    Image.new("L", (4, 4)).save(clean, format="PNG")
    assert image_findings("x.png", clean.getvalue(), "image/png") == []


def test_a_file_the_gate_cannot_parse_or_does_not_know_is_a_finding() -> None:
    clean = io.BytesIO()
    Image.new("L", (4, 4)).save(clean, format="PNG")
    data = clean.getvalue()
    assert image_findings("x.png", data[:-2], "image/png") == [
        "x.png: the PNG ends before its IEND chunk"]
    broken_crc = data[:-1] + bytes([data[-1] ^ 1])
    assert image_findings("x.png", broken_crc, "image/png") == [
        "x.png: PNG chunk 'IEND' has a bad CRC"]
    assert image_findings("x.png", data + b"tail", "image/png") == [
        "x.png: 4 bytes after the PNG's IEND"]
    assert image_findings("x.jpg", b"\xff\xd8\xff", "image/jpeg")[0].startswith(
        "x.jpg: a 'image/jpeg' file cannot be proven free of metadata")
    assert image_findings("x.dcm", b"DICM nonsense", "application/dicom")  # never a pass
    assert image_findings("x.dcm", b"", "application/dicom")


def test_names_are_found_case_insensitively_as_whole_words() -> None:
    texts = {"a.md": b"Reviewed by dr  ada rivera.\nAdamant\n", "b.csv": b"ada\n"}
    assert name_findings(texts, ["Dr Ada Rivera", "Ada"]) == [
        "a.md: line 1 names user 'Ada'",
        "a.md: line 1 names user 'Dr Ada Rivera'",
        "b.csv: line 1 names user 'Ada'",
    ]


def test_names_are_matched_as_the_plain_whole_word_pattern_would() -> None:
    import re

    def plain(name: str) -> re.Pattern[str]:  # the rule, written the obvious way
        words = [re.escape(w) for w in name.split()]
        return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)

    names = ["Ada", "Dr Ada Rivera", "(Ada)", "O'Brien", "Dr Bench 01 · site 002", "ß Ü"]
    lines = ["Ada", "xAda", "_Ada", "1Ada", "Ada_", " ada.", "dr\tADA  rivera", "(Ada)",
             "x(Ada)", "o'brien", "MO'BRIEN", "dr bench 01 · SITE 002", "ẞ ü", "ß ü!", "",
             "Adamant", "A", "AdaAda Ada"]
    for name in names:
        for line in lines:
            assert bool(name_findings({"t": line.encode()}, [name])) == bool(
                plain(name).search(line)), (name, line)


def test_many_names_at_once_find_what_each_name_finds_alone() -> None:
    # The release's text is scanned once for all the project's users together (a trie of
    # their names); what it finds must be exactly what asking for each name alone finds.
    import random

    rng = random.Random(7)
    names = ["Ada", "Ada Rivera", "Dr Ada Rivera", "Adam", "(Ada)", "O'Brien", "ß Ü", "Bo",
             *(f"Dr Bench {n:02d} · site {s:03d}" for n in range(1, 4) for s in range(1, 60))]
    words = ["Ada", "ada", "Rivera", "Dr", "dr", "Adam", "Adamant", "(Ada)", "o'brien", "ẞ",
             "ü", "Bo", "Bob", "Bench", "01", "03", "·", "site", "002", "059", "x", ".", "_"]
    lines = [rng.choice(["", " ", "  ", "\t"]).join(rng.choice(words) for _ in range(8))
             for _ in range(400)]
    lines += ["seen by Dr Bench 02 · site 017, dr  bench 03 · SITE 059.", "Dr Bench 02 · site 0170",
              "(Dr Bench 01 · site 001)", "Dr Ada Riverax", "Ada Rivera_", "Adam Ada"]
    texts = {"t.md": "\n".join(lines).encode()}
    alone = sorted(f for name in names for f in name_findings(texts, [name]))
    assert sorted(name_findings(texts, names)) == alone
    assert len(alone) > 100  # the lines do name people: the comparison is not vacuous


def test_a_repeated_line_is_named_wherever_it_stands() -> None:
    line = b'  "text": "seen by Ben Okafor",\n'
    texts = {"a.json": b"{\n" + line + b"  x\n" + line, "b.json": line}
    assert name_findings(texts, ["Ben Okafor"]) == [
        "a.json: line 2 names user 'Ben Okafor'",
        "a.json: line 4 names user 'Ben Okafor'",
        "b.json: line 1 names user 'Ben Okafor'",
    ]


def test_a_user_name_in_released_text_stops_the_export(
    build_project: Callable[..., Project], tmp_path: Path
) -> None:
    project = build_project(str(tmp_path / "p"))
    decisions.decide(project, SENIOR, "R2", "importance:Figure 3", "optional", "clinical_judgement",
                  "Agreed with Dr Ben Okafor on the phone.")
    decisions.green_light(project, SENIOR, "R2")
    out = tmp_path / "release"
    with pytest.raises(PrivacyError) as caught:
        export_release(project, CURATOR, out, version="1.0.0", include_comments=True)
    assert any(f.startswith("release.json: line") and f.endswith("names user 'Dr Ben Okafor'")
               for f in caught.value.findings)
    assert "nothing was written" in str(caught.value)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["p"]
    # without the comments the reason text stays in the project and the export goes ahead
    export_release(project, CURATOR, out, version="1.0.0")
    assert "Okafor" not in (out / "release.json").read_text("utf-8")


def test_an_image_that_was_not_de_identified_stops_an_export_that_ships_it(
    build_project: Callable[..., Project], tmp_path: Path
) -> None:
    project = build_project(str(tmp_path / "p"), deidentify=False)
    with pytest.raises(PrivacyError) as caught:
        export_release(project, CURATOR, tmp_path / "release", version="1.0.0",
                       include_dicom=True)
    assert any(f.startswith("R1: dicom/R1/figure_4-1.dcm: PatientName is not empty")
               for f in caught.value.findings)
    assert not (tmp_path / "release").exists()
