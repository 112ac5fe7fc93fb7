"""Import's image work in worker processes gives what the threads of a small import give.

Every image's read, probe, de-identification, re-encoding, hash and burned-in text check
run in one call in a worker process (forked where safe, spawned under Qt or threads);
errors keep their file and reason, and a worker that dies leaves its images to the main
process instead of failing the import.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import signal
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from draft_files import dicom_with_patient, jpeg_bytes, make_case, png_bytes, write_case_file

from annotator.bench.text_images import text_image
from annotator.domain.checks import image_uses
from annotator.ingest import images
from annotator.ingest.images import ImageReader, ImageRejected
from annotator.ingest.reader import iter_case_sources


def _drafts(root: Path) -> list[Path]:
    """Six cases: metadata to strip, a DICOM patient, burned-in text, a JPEG with EXIF,
    a missing image and an unreadable one."""
    contents = {
        "a": (png_bytes(1, text={"Author": "Dr Who"}), dicom_with_patient(), "dcm"),
        "b": (text_image(0).data, jpeg_bytes(exif={0x010F: "Maker"}), "jpg"),
        "c": (png_bytes(2), None, "png"),  # the second image is missing
        "d": (b"\x89PNG\r\n\x1a\n not really a png", png_bytes(3), "png"),
        "e": (png_bytes(4), png_bytes(5), "png"),
        "f": (png_bytes(4), png_bytes(6), "png"),  # f1 the same pixels as e's
    }
    files = []
    for name, (first, second, ext) in contents.items():
        folder = root / name
        case = make_case(f"case-{name}")
        case["imaging_examinations"][1]["image_paths"] = [f"images/f2.{ext}"]
        case["images"][1]["path"] = f"images/f2.{ext}"
        files.append(write_case_file(folder, case, images=False))
        (folder / "images").mkdir()
        (folder / "images/f1.png").write_bytes(first)
        if second is not None:
            (folder / f"images/f2.{ext}").write_bytes(second)
    return files


def _read(root: Path) -> list[Any]:
    """Everything a run gives, in order: candidates with their images, and rejections."""
    out: list[Any] = []
    for part in iter_case_sources([root], seed="pool-seed"):
        for case in part.accepted:
            out.append((case.case_id, case.content_hash, [
                (i.draft_path, i.sha256, i.data, i.media_type, i.width, i.height, i.frames,
                 i.removed, i.dicom_header, i.pixel_check) for i in case.images]))
        out += [(r.file, r.case_id, r.field, r.reason) for r in part.rejected]
    return out


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_processes_give_what_threads_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    monkeypatch.setenv("ANNOTATOR_CACHE", "off")  # each run checks the pixels itself
    _drafts(tmp_path)
    monkeypatch.setattr(images, "PROCESS_MIN_IMAGES", 10_000)
    on_threads = _read(tmp_path)
    used: list[str] = []

    def context() -> multiprocessing.context.BaseContext:
        used.append(method)
        return multiprocessing.get_context(method)

    monkeypatch.setattr(images, "PROCESS_MIN_IMAGES", 1)
    monkeypatch.setattr(images, "pool_context", context)
    in_processes = _read(tmp_path)
    assert used == [method]  # one pool for the run
    assert in_processes == on_threads
    accepted = {item[0]: item[2] for item in on_threads if isinstance(item[0], str)
                and len(item) == 3}
    assert set(accepted) == {"case-a", "case-b", "case-e", "case-f"}
    a1, a2 = accepted["case-a"]
    assert a1[7] and a2[7]  # the PNG's text chunk and the DICOM's patient removed
    assert b"Doe^Jane" not in a2[2] and b"MRN-123456" not in a2[2]
    b1 = accepted["case-b"][0]
    assert b1[9] is not None and b1[9].flagged and b1[9].boxes  # burned-in text found
    assert accepted["case-e"][0][1] == accepted["case-f"][0][1]  # same pixels, same hash
    rejected = {item[1]: item for item in on_threads if len(item) == 4}
    assert set(rejected) == {"case-c", "case-d"}
    assert "image file not found" in rejected["case-c"][3]
    assert "f2.png" in rejected["case-c"][3]
    assert "unreadable image" in rejected["case-d"][3]


def test_a_run_gets_its_process_pool_only_when_large() -> None:
    small = ImageReader(deidentify=True, seed="s")
    small.plan(images.PROCESS_MIN_IMAGES - 1)
    assert small._pool is None  # threads, started with the first prefetch
    small.close()
    large = ImageReader(deidentify=True, seed="s")
    large.plan(images.PROCESS_MIN_IMAGES - 1)
    large.plan(1)
    try:
        assert isinstance(large._pool, ProcessPoolExecutor)
    finally:
        large.close()


def test_a_rejection_survives_the_trip_from_a_worker() -> None:
    error = pickle.loads(pickle.dumps(ImageRejected("images[0].path", "image file not found")))
    assert (error.field, error.reason) == ("images[0].path", "image file not found")


def test_images_of_a_dead_worker_are_read_in_the_main_process(tmp_path: Path) -> None:
    files = _drafts(tmp_path)
    uses = [(file.parent, use) for file in files for use in
            image_uses(json.loads(file.read_text("utf-8")))]
    expected = ImageReader(deidentify=True, seed="s", processes=False)
    reader = ImageReader(deidentify=True, seed="s", processes=True)
    try:
        reader.plan(len(uses))
        pool = reader._pool
        assert isinstance(pool, ProcessPoolExecutor)
        pool.submit(os.getpid).result()  # the workers are up
        for pid in list(pool._processes):  # noqa: SLF001 - the test kills them
            os.kill(pid, signal.SIGKILL)
        keys = {reader.prefetch(base, use) for base, use in uses}
        assert None not in keys
        for base, use in uses:
            try:
                got = reader.read(base, use)
            except ImageRejected as exc:
                with pytest.raises(ImageRejected) as again:
                    expected.read(base, use)
                assert (again.value.field, again.value.reason) == (exc.field, exc.reason)
            else:
                want = expected.read(base, use)
                assert (got.sha256, got.data, got.removed) == (want.sha256, want.data,
                                                               want.removed)
    finally:
        reader.close()
        expected.close()
