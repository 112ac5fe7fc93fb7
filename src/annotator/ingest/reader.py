"""Read draft case files into import candidates: the entry point of case import.

Each case is either accepted (possibly with problems that mark it ``needs_fix``, and with
warnings) or rejected whole with file, case id, field and reason. Good cases are returned
even when others fail; bad input never raises.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.domain.case import CaseFormatError, content_hash, normalise_draft, parse_case
from annotator.domain.checks import case_warnings, check_case, image_uses
from annotator.ingest.images import ImageReader, ImageRejected
from annotator.ingest.results import (
    CandidateImage,
    CaseCandidate,
    DuplicateCase,
    IngestResult,
    Rejection,
)
from annotator.ingest.sources import CaseObject, find_case_files, json_kind, read_case_objects

# Problems the store cannot live with: the figure is the exam's identity.
_REJECTING_CODES = {"exam_duplicate_figure", "exam_figure_missing"}


BATCH_CASES = 50  # cases read (and, by the import service, stored) together


def read_case_sources(paths: Sequence[Path], *, deidentify: bool = True,
                      seed: str) -> IngestResult:
    """Read every case in ``paths`` (JSON files holding a case or an array, or folders).

    Images are read relative to each JSON file's folder, probed, and (``deidentify``, the
    default) cleaned: DICOM de-identified with ``seed``, PNG/JPEG metadata stripped. The same
    case id twice in one run rejects the later one.
    """
    result = IngestResult()
    for part in iter_case_sources(paths, deidentify=deidentify, seed=seed):
        result.accepted.extend(part.accepted)
        result.rejected.extend(part.rejected)
        result.duplicates_in_input.extend(part.duplicates_in_input)
    return result


def iter_case_sources(paths: Sequence[Path], *, deidentify: bool = True, seed: str,
                      batch: int = BATCH_CASES, checked: frozenset[str] = frozenset(),
                      check_pixels: bool = True) -> Iterator[IngestResult]:
    """:func:`read_case_sources` in parts of about ``batch`` cases, so that an import holds
    about two parts' images in memory, not every image of the run.

    The images of the next part are read in worker processes (threads for a small run,
    see :class:`ImageReader`) while the caller stores the part just yielded: cleaning and
    checking images and writing the database overlap instead of taking turns.
    """
    files, rejected = find_case_files(paths)
    part = IngestResult()
    part.rejected.extend(rejected)
    images = ImageReader(deidentify=deidentify, seed=seed, checked=checked,
                         check_pixels=check_pixels)
    first_seen: dict[str, Path] = {}
    pending: list[CaseObject] = []
    started: _Started | None = None
    try:
        for file in files:
            objects, rejection = read_case_objects(file)
            if rejection is not None:
                part.rejected.append(rejection)
            pending.extend(objects)
            if len(pending) >= batch:
                following = _start(pending, images, first_seen, part)
                if started is not None:
                    yield _finish(started, images, keep=following.keys)
                started, part, pending = following, IngestResult(), []
        following = _start(pending, images, first_seen, part)
        if started is not None:
            yield _finish(started, images, keep=following.keys)
        yield _finish(following, images, keep=set())
    finally:
        images.close()


@dataclass
class _Started:
    """A part whose cases are checked and whose images are being read."""

    checked: list[_Checked | Rejection]
    result: IngestResult
    keys: set[Path]


def _start(objects: list[CaseObject], images: ImageReader, first_seen: dict[str, Path],
           result: IngestResult) -> _Started:
    """Check the cases in order and start reading all their images."""
    checked = [_check(obj, first_seen, result) for obj in objects]
    keys = images.prefetch_all((item.obj.file.parent, use) for item in checked
                               if not isinstance(item, Rejection)
                               for use in image_uses(item.content))
    return _Started(checked, result, keys)


def _finish(started: _Started, images: ImageReader, *, keep: set[Path]) -> IngestResult:
    """Wait for a started part's images and build its candidates; then drop those images
    (but ``keep``: the next part's, when both cite a file)."""
    for item in started.checked:
        outcome = item if isinstance(item, Rejection) else _with_images(item, images)
        if isinstance(outcome, Rejection):
            started.result.rejected.append(outcome)
        else:
            started.result.accepted.append(outcome)
    images.forget(started.keys - keep)
    return started.result


@dataclass
class _Checked:
    obj: CaseObject
    case_id: str
    content: dict[str, Any]
    original: dict[str, Any]
    problems: list[Any]


def _check(obj: CaseObject, first_seen: dict[str, Path],
           result: IngestResult) -> _Checked | Rejection:
    where = f"item [{obj.index}] of the array: " if obj.index is not None else ""
    raw = obj.value
    if not isinstance(raw, dict):
        return Rejection(obj.file, None, None,
                         f"{where}a case must be a JSON object, not {json_kind(raw)}")
    if "case_id" not in raw:
        return Rejection(obj.file, None, "case_id", f"{where}not a case object: no 'case_id'")
    content, original = normalise_draft(raw)
    shown_id = content["case_id"] if isinstance(content["case_id"], str) else None
    try:
        parse_case(content)
    except CaseFormatError as exc:
        first, *rest = exc.errors
        also = "".join(f"; also {e.field}: {e.reason}" for e in rest)
        case_where = where if shown_id is None else ""
        return Rejection(obj.file, shown_id, first.field, f"{case_where}{first.reason}{also}")
    case_id: str = content["case_id"]
    if case_id in first_seen:
        result.duplicates_in_input.append(DuplicateCase(case_id, first_seen[case_id], obj.file))
        return Rejection(obj.file, case_id, "case_id",
                         f"duplicate case id, also in {first_seen[case_id]}")
    first_seen[case_id] = obj.file
    problems = check_case(content)
    fatal = [p for p in problems if p.code in _REJECTING_CODES]
    if fatal:
        return Rejection(obj.file, case_id, fatal[0].field, fatal[0].message)
    return _Checked(obj, case_id, content, original, problems)


def _with_images(item: _Checked, images: ImageReader) -> CaseCandidate | Rejection:
    obj, content = item.obj, item.content
    loaded: list[CandidateImage] = []
    failures: list[ImageRejected] = []
    for use in image_uses(content):
        try:
            loaded.append(images.read(obj.file.parent, use))
        except ImageRejected as exc:
            failures.append(exc)
    if failures:
        also = "".join(f"; also {f.field}: {f.reason}" for f in failures[1:])
        return Rejection(obj.file, item.case_id, failures[0].field, failures[0].reason + also)
    digest = content_hash({"case": content, "images": {i.draft_path: i.sha256 for i in loaded}})
    return CaseCandidate(
        file=obj.file, case_id=item.case_id, content=content, original_values=item.original,
        images=loaded, problems=item.problems, warnings=case_warnings(content),
        content_hash=digest,
    )
