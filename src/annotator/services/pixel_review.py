"""Burned-in text: the stored checks, a curator's review of flagged images, redaction.

A check is kept per SHA-256 of the stored bytes (``image_text_checks``), so a team store
shares it and an image in several cases is checked once. A curator resolves a flagged image
either by burning black boxes into its pixels (every case holding it gets the new bytes;
the unredacted ones leave the store) or by saying it holds no patient data, with a reason.
The review is keyed by the hash import computes from the draft's original, so importing
the same draft again keeps the redaction, and changed pixels are checked and flagged again.
"""

from __future__ import annotations

import io
import uuid
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.errors import AnnotatorError, NotFound
from annotator.imaging._raster import read_raster
from annotator.imaging.burned_text import displayed_frames
from annotator.imaging.probe import DICOM, PNG, sniff_media_type
from annotator.imaging.render import encode_png
from annotator.ingest.deidentify import read_dicom
from annotator.ingest.pixel_text import check_pixels, exam_modalities, exam_reasons
from annotator.ingest.results import CandidateImage
from annotator.services.pixel_status import ImageStatus, image_statuses
from annotator.services.users import require
from annotator.store.history import record
from annotator.store.project import Project, vacuum
from annotator.store.schema import (
    Case,
    CaseImage,
    CaseRevision,
    ImageBlob,
    ImageReview,
    ImageTextCheck,
)

Box = tuple[int, int, int, int]


class RedactionError(AnnotatorError):
    """A redaction that cannot be applied (bad box, unknown image); nothing was changed."""


# --- checks at import --------------------------------------------------------------------


def checked_hashes(session: Session) -> frozenset[str]:
    """Every hash whose pixels the project checked (import does not check them again)."""
    return frozenset(session.scalars(select(ImageTextCheck.sha256)))


def store_checks(session: Session, images: Sequence[CandidateImage], content: dict[str, Any],
                 checked: set[str]) -> int:
    """Record the checks of a case's images; returns how many are flagged and unreviewed.

    ``checked`` holds the hashes with a check row (it grows here). An exam naming
    ultrasound or a photograph flags its images even when their pixels were checked before.
    """
    flagged = 0
    reviewed = set(session.scalars(select(ImageReview.sha256).where(
        ImageReview.sha256.in_(sorted({image.sha256 for image in images})))))
    for image in images:
        extra = exam_reasons(exam_modalities(content, image.figures))
        row = session.get(ImageTextCheck, image.sha256) if image.sha256 in checked else None
        if row is None and image.pixel_check is not None:
            check = image.pixel_check
            row = ImageTextCheck(sha256=image.sha256, reasons=[*check.reasons, *extra],
                                 boxes=check.boxes_json(), checker=check.checker,
                                 flagged=bool(check.reasons or extra))
            session.add(row)
            checked.add(image.sha256)
        elif row is not None and not set(extra) <= set(row.reasons):
            row.reasons = [*row.reasons, *(r for r in extra if r not in row.reasons)]
            row.flagged = True
        if row is not None and row.flagged and image.sha256 not in reviewed:
            flagged += 1
    return flagged


def redacted_hashes(session: Session, shas: Iterable[str]) -> dict[str, str]:
    """Imported hash -> the hash of the redacted bytes kept instead, for images redacted."""
    wanted = sorted(set(shas))
    found: dict[str, str] = {}
    for start in range(0, len(wanted), 500):
        for review in session.scalars(select(ImageReview).where(
                ImageReview.sha256.in_(wanted[start:start + 500]),
                ImageReview.outcome == "redacted")):
            found[review.sha256] = review.stored_sha256
    return found


def scan(project: Project, actor: str) -> int:
    """Check every stored image that has no check yet (stored before checks existed)."""
    with project.read() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        done = checked_hashes(session)
        rows = session.execute(select(CaseImage.sha256, CaseImage.figures, CaseImage.draft_path,
                                      CaseRevision.content)
                               .join(CaseRevision, CaseRevision.id == CaseImage.revision_id)
                               ).all()
    todo: dict[str, list[Any]] = {}
    for sha, figures, path, content in rows:
        if sha not in done:
            todo.setdefault(sha, []).append((figures, path, content))
    for sha, uses in sorted(todo.items()):
        with project.read() as session:
            data = project.images.get(session, sha)
        check = check_pixels(data, name=uses[0][1])
        extra = [r for figures, _, content in uses
                 for r in exam_reasons(exam_modalities(content, figures))]
        reasons = list(dict.fromkeys([*check.reasons, *extra]))
        with project.tx() as session:
            if session.get(ImageTextCheck, sha) is None:
                session.add(ImageTextCheck(sha256=sha, reasons=reasons, boxes=check.boxes_json(),
                                           checker=check.checker, flagged=bool(reasons)))
    return len(todo)


# --- what needs review -------------------------------------------------------------------


def list_images(project: Project, actor: str, *, all_images: bool = False
                ) -> list[ImageStatus]:
    """Flagged (and unchecked) images of every case; every image with ``all_images``."""
    with project.read() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        rows = image_statuses(session)
    return rows if all_images else [r for r in rows if r.status != "clear"]


# --- redaction -------------------------------------------------------------------------


def parse_box(text: str) -> Box:
    """``X,Y,W,H`` in pixels -> a box; raises RedactionError with the reason."""
    parts = text.split(",")
    try:
        x, y, w, h = (int(p.strip()) for p in parts)
    except ValueError:
        raise RedactionError(f"box {text!r}: give X,Y,W,H as four whole numbers") from None
    if x < 0 or y < 0 or w <= 0 or h <= 0:
        raise RedactionError(f"box {text!r}: X and Y must be >= 0, W and H > 0")
    return x, y, w, h


def redact(project: Project, actor: str, case_id: str, draft_path: str,
           boxes: Sequence[Box], *, frame: int | None = None) -> str:
    """Burn black ``boxes`` into the image, on every frame or on ``frame`` only; returns
    the new bytes' hash."""
    if not boxes:
        raise RedactionError("give at least one --box X,Y,W,H")
    if frame is not None and frame < 0:
        raise RedactionError(f"frame {frame}: frames are numbered from 0")
    with project.tx() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        image = _current_image(session, case_id, draft_path)
        old = image.sha256
        data = project.images.get(session, old)
        redacted, media_type = burn_boxes(data, boxes, name=draft_path, frame=frame)
        new = project.images.put(session, redacted, media_type)
        key = _review_key(session, old)
        box_json = [{"box": list(b), **({} if frame is None else {"frame": frame})}
                    for b in boxes]
        previous = session.get(ImageReview, key)
        if previous is not None:
            box_json = [*previous.boxes, *box_json]
            session.delete(previous)
            session.flush()
        session.add(ImageReview(sha256=key, outcome="redacted", stored_sha256=new,
                                boxes=box_json, reason="", reviewed_by=actor))
        _carry_check(session, old, new)
        for case_pk in _move_image(session, old, new):
            record(session, actor, "image_redacted", case_pk=case_pk, key=draft_path,
                   before={"sha256": old}, after={"sha256": new, "boxes": [list(b) for b in boxes],
                                                  "frame": frame})
        _drop_blob(session, project, old)
    vacuum(project)
    return new


def no_phi(project: Project, actor: str, case_id: str, draft_path: str, reason: str) -> None:
    """Record that a flagged image shows no patient data (the reason is required)."""
    if not reason.strip():
        raise RedactionError("say why the image holds no patient data (--reason TEXT)")
    with project.tx() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        image = _current_image(session, case_id, draft_path)
        key = _review_key(session, image.sha256)
        previous = session.get(ImageReview, key)
        if previous is not None:
            session.delete(previous)
            session.flush()
        session.add(ImageReview(sha256=key, outcome="no_phi", stored_sha256=image.sha256,
                                boxes=[], reason=reason.strip(), reviewed_by=actor))
        for case_pk in _holders(session, image.sha256):
            record(session, actor, "image_no_phi", case_pk=case_pk, key=draft_path,
                   after={"sha256": image.sha256, "reason": reason.strip()})


@dataclass
class AcceptReport:
    redacted: list[ImageStatus] = field(default_factory=list)
    left: list[ImageStatus] = field(default_factory=list)  # flagged without boxes: a person


def accept_suggested(project: Project, actor: str, case_ids: Sequence[str] = ()
                     ) -> AcceptReport:
    """Redact every flagged, unreviewed image with the boxes its check proposes."""
    with project.read() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        known = set(session.scalars(select(Case.case_id)))
        missing = [c for c in case_ids if c not in known]
        if missing:
            raise NotFound(f"no case {', '.join(missing)} in the project")
        rows = image_statuses(session, case_ids or None)
    report = AcceptReport()
    done: set[str] = set()
    for row in rows:
        if row.status != "flagged" or row.sha256 in done:
            continue
        if not row.boxes:
            report.left.append(row)
            continue
        boxes = sorted({tuple(b["box"]) for b in row.boxes})
        redact(project, actor, row.case_id, row.draft_path, [_box(b) for b in boxes])
        done.add(row.sha256)
        report.redacted.append(row)
    return report


def _box(values: tuple[Any, ...]) -> Box:
    x, y, w, h = (int(v) for v in values)
    return x, y, w, h


def _current_image(session: Session, case_id: str, draft_path: str) -> CaseImage:
    case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
    if case is None:
        raise NotFound(f"no case {case_id!r} in the project")
    image = session.scalars(select(CaseImage).where(
        CaseImage.revision_id == case.current_revision_id,
        CaseImage.draft_path == draft_path)).first()
    if image is None:
        paths = session.scalars(select(CaseImage.draft_path).where(
            CaseImage.revision_id == case.current_revision_id))
        raise NotFound(f"case {case_id} has no image {draft_path!r} (it has: "
                       f"{', '.join(sorted(paths)) or 'none'})")
    return image


def _review_key(session: Session, sha: str) -> str:
    """The hash a review is kept under: the imported original's, also after a redaction."""
    earlier = session.scalars(select(ImageReview).where(ImageReview.stored_sha256 == sha)).first()
    return earlier.sha256 if earlier is not None else sha


def _carry_check(session: Session, old: str, new: str) -> None:
    """The redacted bytes count as checked: their finding is the one the curator resolved."""
    check = session.get(ImageTextCheck, old)
    if session.get(ImageTextCheck, new) is None and check is not None:
        session.add(ImageTextCheck(sha256=new, flagged=check.flagged, reasons=list(check.reasons),
                                   boxes=list(check.boxes), checker=check.checker))


def _holders(session: Session, sha: str) -> list[uuid.UUID]:
    return sorted(set(session.scalars(
        select(CaseRevision.case_pk).join(CaseImage, CaseImage.revision_id == CaseRevision.id)
        .where(CaseImage.sha256 == sha))))


def _move_image(session: Session, old: str, new: str) -> list[uuid.UUID]:
    """Point every revision of every case holding ``old`` at ``new``; the cases moved."""
    holders = _holders(session, old)
    session.execute(update(CaseImage).where(CaseImage.sha256 == old).values(sha256=new))
    return holders


def _drop_blob(session: Session, project: Project, sha: str) -> None:
    """Remove the unredacted bytes: the database row and, for a folder store, the file."""
    session.execute(delete(ImageBlob).where(ImageBlob.sha256 == sha))
    if project.images.folder is not None:
        path = project.images.folder / sha[:2] / sha
        path.unlink(missing_ok=True)
    if project.folder is not None:
        for cached in (project.folder / "cache").rglob(f"{sha}*"):
            cached.unlink(missing_ok=True)


def burn_boxes(data: bytes, boxes: Sequence[Box], *, name: str, frame: int | None = None
               ) -> tuple[bytes, str]:
    """The image with every box filled black on every frame (or on ``frame`` only); its
    bytes and media type.

    PNG and JPEG are written as PNG from their pixels (as import writes them); DICOM keeps
    every element and gets new pixel data (black: the smallest stored value, or the
    largest for MONOCHROME1).
    """
    media_type = sniff_media_type(data)
    if media_type == DICOM:
        return _burn_dicom(data, boxes, name, frame), DICOM
    if media_type is None:
        raise RedactionError(f"{name}: not a PNG, JPEG or DICOM file")
    if frame not in (None, 0):
        raise RedactionError(f"{name}: a PNG or JPEG has one frame (0), not frame {frame}")
    pixels = np.array(read_raster(data, media_type, name))
    _fill(pixels, boxes, 0, name)
    if pixels.dtype != np.uint8:
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="PNG")
        return buffer.getvalue(), PNG
    return encode_png(pixels), PNG


def _burn_dicom(data: bytes, boxes: Sequence[Box], name: str, only: int | None) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = read_dicom(data)
        if ds.file_meta.TransferSyntaxUID.is_compressed:  # kept as imported: write native
            ds.decompress()
        pixels = np.array(ds.pixel_array)
    frames = pixels if int(ds.get("NumberOfFrames", 1) or 1) > 1 else pixels[np.newaxis]
    black = _black(ds, pixels.dtype)
    if only is not None and only >= len(frames):
        raise RedactionError(f"{name}: has {len(frames)} frame(s), numbered from 0;"
                             f" there is no frame {only}")
    for index, frame in enumerate(frames):
        if only is None or index == only:
            _fill(frame, boxes, black, name)
    ds.PixelData = (frames if pixels.ndim == frames.ndim else frames[0]).tobytes()
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def _black(ds: Any, dtype: np.dtype[Any]) -> int:
    """The stored value shown black: the smallest one the pixel format holds, or the
    largest for MONOCHROME1 (which shows high values dark)."""
    bits = int(ds.get("BitsStored", 0) or 0) or dtype.itemsize * 8
    signed = dtype.kind == "i"
    low, high = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1))
    monochrome1 = str(ds.get("PhotometricInterpretation", "")).strip() == "MONOCHROME1"
    return high if monochrome1 else low


def _fill(pixels: np.ndarray, boxes: Sequence[Box], value: int, name: str) -> None:
    height, width = pixels.shape[:2]
    for x, y, w, h in boxes:
        if x >= width or y >= height:
            raise RedactionError(f"{name}: box {x},{y},{w},{h} lies outside the"
                                 f" {width} x {height} image")
        pixels[y:y + h, x:x + w] = value


# --- the same boxes on a series -----------------------------------------------------------


def series_images(project: Project, actor: str, case_id: str, draft_path: str) -> list[str]:
    """The case's other images of the same DICOM series with the same geometry (rows,
    columns and frames), by draft path: where the same overlay usually sits in the same
    place, so the same boxes can be burned into each."""
    with project.read() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        image = _current_image(session, case_id, draft_path)
        others = session.scalars(select(CaseImage).where(
            CaseImage.revision_id == image.revision_id,
            CaseImage.draft_path != draft_path).order_by(CaseImage.draft_path)).all()
        key = _series_key(project.images.get(session, image.sha256))
        if key is None:
            return []
        return [other.draft_path for other in others
                if _series_key(project.images.get(session, other.sha256)) == key]


def _series_key(data: bytes) -> tuple[str, int, int, int] | None:
    if sniff_media_type(data) != DICOM:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = read_dicom(data)
    series = str(ds.get("SeriesInstanceUID", "") or "")
    if not series:
        return None
    return (series, int(ds.get("Rows", 0) or 0), int(ds.get("Columns", 0) or 0),
            int(ds.get("NumberOfFrames", 1) or 1))


# --- backups made before a redaction -------------------------------------------------------


@dataclass(frozen=True)
class OldBackup:
    """A backup in the project's ``backups`` folder written before the last redaction: a
    copy of the database as it was then (the unredacted image's rows and its findings;
    a folder project keeps the pixels themselves in ``images/``, see docs/security.md)."""

    path: Path
    written: datetime


def backups_before_redaction(project: Project, actor: str) -> list[OldBackup]:
    """The project's own backups (``backups/*.sqlite``) older than its last redaction."""
    with project.read() as session:
        require(session, actor, Action.BACKUP)
        last = session.scalars(select(func.max(ImageReview.reviewed_at)).where(
            ImageReview.outcome == "redacted")).first()
    if last is None or project.folder is None:
        return []
    folder = project.folder / "backups"
    found = []
    for path in sorted(folder.glob("*.sqlite")) if folder.is_dir() else []:
        written = datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None)
        if written < last:
            found.append(OldBackup(path, written))
    return found


def drop_backups_before_redaction(project: Project, actor: str) -> list[OldBackup]:
    """Delete the backups :func:`backups_before_redaction` lists, recorded in the history."""
    old = backups_before_redaction(project, actor)
    if not old:
        return []
    for backup in old:
        backup.path.unlink(missing_ok=True)
    with project.tx() as session:
        record(session, actor, "backups_dropped",
               after={"files": [b.path.name for b in old]}, why="made before a redaction")
    return old


# --- what the redaction page shows and does -------------------------------------------------


@dataclass
class ReviewImage:
    """A flagged image as the redaction page shows it: its status (with the proposed
    boxes), every frame as displayed (uint8 grey) and the case's images of the same series."""

    status: ImageStatus
    frames: list[np.ndarray]
    series: list[str]


def review_image(project: Project, actor: str, case_id: str, draft_path: str) -> ReviewImage:
    """One image of a case for the redaction page (curators)."""
    with project.read() as session:
        require(session, actor, Action.REVIEW_IMAGES)
        image = _current_image(session, case_id, draft_path)
        data = project.images.get(session, image.sha256)
        status = next(s for s in image_statuses(session, [case_id])
                      if s.draft_path == draft_path)
    frames = [grey for _, grey in displayed_frames(data, name=draft_path)]
    return ReviewImage(status, frames, series_images(project, actor, case_id, draft_path))


def apply_redaction(project: Project, actor: str, case_id: str, draft_path: str,
                    boxes: Sequence[Box], *, frame: int | None = None,
                    series: bool = False) -> list[str]:
    """Burn ``boxes`` into the image (one frame, or every frame), and with ``series`` into
    every image of the case in the same series with the same geometry; returns the draft
    paths redacted."""
    paths = [draft_path, *(series_images(project, actor, case_id, draft_path) if series
                           else [])]
    for path in paths:
        redact(project, actor, case_id, path, boxes, frame=frame)
    return paths
