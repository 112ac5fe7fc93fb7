"""Bounded reads: FIFOs, devices, symlinks, odd text and huge images are refused, one file at a
time, and never stop the good files of the same run from going in."""

from __future__ import annotations

import io
import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pydicom
from draft_files import bundled_dicom, make_case, write_case_file

from annotator.imaging.probe import ImageDecodeError, probe_image
from annotator.ingest.reader import read_case_sources
from annotator.ingest.results import IngestResult


def read(*paths: Path, **options: Any) -> IngestResult:
    options.setdefault("seed", "test-seed")
    return read_case_sources(list(paths), **options)


def _reasons(result: IngestResult) -> dict[str, str]:
    return {r.file.name: r.reason for r in result.rejected}


def test_a_fifo_is_refused_without_blocking(case_dir: Path) -> None:
    good = write_case_file(case_dir, make_case("1"))
    fifo = case_dir / "pipe.json"
    os.mkfifo(fifo)
    result = read(good, fifo)  # would block forever on open() or read() of the FIFO
    assert [c.case_id for c in result.accepted] == ["1"]
    assert "not a regular file" in _reasons(result)["pipe.json"]
    result = read(case_dir)  # found by walking the folder too
    assert [c.case_id for c in result.accepted] == ["1"]
    assert "not a regular file" in _reasons(result)["pipe.json"]


def test_an_image_path_to_a_device_is_never_read(case_dir: Path) -> None:
    depth = len(case_dir.resolve().parts) - 1
    case = make_case("1")
    case["imaging_examinations"][0]["image_paths"] = ["../" * depth + "dev/zero"]
    file = write_case_file(case_dir, [case, make_case("2")])
    result = read(file)
    assert [c.case_id for c in result.accepted] == ["2"]
    assert "not a regular file" in result.rejected[0].reason


def test_symlinks_out_of_the_folder_and_symlink_loops_are_reported(
    case_dir: Path, tmp_path: Path
) -> None:
    write_case_file(case_dir, make_case("1"))
    outside = write_case_file(tmp_path / "elsewhere", make_case("2"))
    (case_dir / "evil.json").symlink_to(outside)
    (case_dir / "a.json").symlink_to(case_dir / "b.json")
    (case_dir / "b.json").symlink_to(case_dir / "a.json")
    (case_dir / "sub").mkdir()
    (case_dir / "sub" / "again").symlink_to(case_dir, target_is_directory=True)  # a folder loop
    result = read(case_dir)
    assert [c.case_id for c in result.accepted] == ["1"]
    reasons = _reasons(result)
    assert "outside the imported folder" in reasons["evil.json"]
    assert "looping symlink" in reasons["a.json"] and "looping symlink" in reasons["b.json"]


def test_lone_surrogates_and_nul_characters_are_one_files_problem(case_dir: Path) -> None:
    good = write_case_file(case_dir, make_case("1"))
    surrogate = case_dir / "surrogate.json"
    text = json.dumps(make_case("2")).replace('"case_title": "', '"case_title": "\\ud800', 1)
    surrogate.write_text(text, encoding="utf-8")
    nul = case_dir / "nul.json"
    nul.write_text(json.dumps(make_case("3")).replace('"case_title": "', '"case_title": "\\u0000',
                                                      1), encoding="utf-8")
    result = read(surrogate, good, nul)
    assert [c.case_id for c in result.accepted] == ["1"]
    reasons = _reasons(result)
    assert "lone surrogate" in reasons["surrogate.json"]
    assert "NUL character" in reasons["nul.json"]


def test_nul_bytes_and_over_long_names_in_paths_are_rejections(case_dir: Path) -> None:
    nul_path, long_path = make_case("1"), make_case("2")
    nul_path["imaging_examinations"][0]["image_paths"] = ["images/f\x001.png"]
    long_path["imaging_examinations"][0]["image_paths"] = ["images/" + "x" * 400 + ".png"]
    nul_file = write_case_file(case_dir, nul_path, name="nul.json", images=False)
    write_case_file(case_dir, make_case("3"), name="images.json")  # writes the images
    file = write_case_file(case_dir, [long_path, make_case("3")], images=False)
    result = read(nul_file, file, Path(f"{case_dir}/bad\x00name.json"),
                  case_dir / ("y" * 300 + ".json"))
    assert [c.case_id for c in result.accepted] == ["3"]
    reasons = [(r.file.name[:10], r.case_id, r.reason) for r in result.rejected]
    nul_reason = "a text holds a NUL character (\\u0000), which is not text"
    assert ("nul.json", None, nul_reason) in reasons
    assert any(case_id == "2" and "File name too long" in why for _, case_id, why in reasons)
    assert any(name.startswith("bad") and "no such file" in why for name, _, why in reasons)
    assert any(name == "y" * 10 and "File name too long" in why for name, _, why in reasons)


def _dicom_claiming(rows: int, columns: int, frames: int = 1) -> bytes:
    ds = pydicom.dcmread(io.BytesIO(bundled_dicom("CT_small.dcm")))
    ds.Rows, ds.Columns = rows, columns
    if frames > 1:
        ds.NumberOfFrames = frames
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def _png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I",
                                                                          zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(
        b"IEND", b"")


def test_huge_images_are_refused_from_their_header_before_decoding() -> None:
    for data in (_dicom_claiming(20000, 20000), _dicom_claiming(512, 512, frames=100000),
                 _png_claiming(20000, 20000)):
        try:
            probe_image(data, name="huge")
        except ImageDecodeError as exc:
            assert "too large to open safely" in exc.reason
        else:
            raise AssertionError("a huge image was accepted")


def test_deeply_nested_json_is_refused_alone_and_the_good_files_go_in(case_dir: Path) -> None:
    """Issue 23: a case nested hundreds of levels deep was taken whole (and crashed later
    recursive walks); nested past the parser's limit it must still be one rejection."""
    good = write_case_file(case_dir, make_case("1"))
    files = []
    for levels in (300, 5000):
        text = json.dumps(make_case(f"deep-{levels}"))
        nested = "[" * levels + "]" * levels
        path = case_dir / f"deep-{levels}.json"
        path.write_text(f'{text[:-1]}, "clinical_history_extra": {nested}}}', "utf-8")
        files.append(path)
    result = read(good, *files)
    assert [c.case_id for c in result.accepted] == ["1"]
    reasons = _reasons(result)
    assert all("nested deeper than 64 levels" in reasons[f.name] for f in files)


def test_a_refused_label_is_named_not_echoed_in_full(case_dir: Path) -> None:
    """Issue 23: a 1 MB difficulty came back in full in the case's problem (and on screen)."""
    path = write_case_file(case_dir, make_case("1", difficulty="x" * 1_000_000))
    result = read(path)
    messages = [p.message for c in result.accepted for p in c.problems]
    assert any("1,000,002 characters" in m for m in messages)
    assert max(len(m) for m in messages) < 300
