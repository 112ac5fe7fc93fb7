"""Images of a release: where each goes, what is shipped, and the rows of images.csv.

Every image ships as a PNG under a derived name (case folder, figure, index: never the
uploaded file's name). A stored PNG that provably holds its pixels alone (as import writes
them, see :mod:`annotator.imaging.png_proof`) ships as it is; any other PNG or JPEG is written
anew from its decoded pixels (as at import: whatever the store holds, only pixels leave).
DICOM ships as a PNG rendition for the evaluated models, rendered with the file's own
window; a multi-frame file renders its middle frame (``frames // 2``). The settings used are
recorded per image in images.csv. The de-identified DICOM itself ships only on request. The
privacy gate reads every file exactly as it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Protocol

from annotator.export.errors import ExportError
from annotator.export.layout import (
    DICOM_DIR,
    IMAGES_DIR,
    release_file_names,
    safe_case_dir,
    sha256_hex,
)
from annotator.export.privacy import image_findings
from annotator.export.release_input import ReleasedCase
from annotator.export.render_cache import RenderCache
from annotator.export.text_gate import TextVerdicts
from annotator.imaging.png_proof import pixels_only_proven
from annotator.imaging.probe import DICOM, PNG, ImageDecodeError
from annotator.imaging.render import render_png
from annotator.ingest.deidentify import DeidentifyError, reencode_raster


class Writer(Protocol):
    """Writes one release file; ``sha`` is its SHA-256 when the caller has hashed it."""

    def __call__(self, rel: str, payload: bytes, sha: str | None = None) -> None: ...


@dataclass(frozen=True)
class ShippedImage:
    """One image file of the release with everything images.csv and ATTRIBUTION.tsv say."""

    image_id: str
    case_id: str
    figures: tuple[str, ...]
    path: str
    name: str | None
    caption: str | None
    source_url: str | None
    source_case_url: str | None
    author: str | None
    license: str | None
    sha256: str
    media_type: str
    render: dict[str, Any] | None  # settings of a DICOM rendition, else None
    dicom_path: str | None

    def csv_row(self) -> dict[str, Any]:
        render = self.render or {}
        return {
            "image_id": self.image_id, "case_id": self.case_id,
            "figure": "; ".join(self.figures), "path": self.path, "name": self.name,
            "caption": self.caption, "source_url": self.source_url,
            "source_case_url": self.source_case_url, "sha256": self.sha256,
            "media_type": self.media_type, "rendered_from": "DICOM" if self.render else "",
            "frame": render.get("frame"), "frames": render.get("frames"),
            "window_center": render.get("center"), "window_width": render.get("width"),
            "window_source": render.get("window_source"), "invert": render.get("invert"),
            "render_policy": render.get("policy"), "dicom_path": self.dicom_path,
        }

    def attribution_row(self) -> dict[str, Any]:
        return {"path": self.path, "case_id": self.case_id, "source_url": self.source_url,
                "author": self.author, "license": self.license}


def path_map(case: ReleasedCase) -> dict[str, str]:
    """Draft image path -> release path ``images/<case folder>/<file>``."""
    folder = safe_case_dir(case.case_id)
    names = release_file_names([(img.draft_path, img.figures) for img in case.images])
    return {path: f"{IMAGES_DIR}/{folder}/{name}" for path, name in names.items()}


def rewrite_paths(release: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """A copy of the case with ``image_paths`` and ``images[].path`` in the release layout.

    Only what changes is copied (the case, its exams and image entries, one level each);
    the rest is shared with ``release``, which is left as it was."""
    case = dict(release)
    if isinstance(case.get("imaging_examinations"), list):
        case["imaging_examinations"] = [
            {**exam, "image_paths": [mapping.get(p, p) for p in exam["image_paths"]]}
            if isinstance(exam, dict) and isinstance(exam.get("image_paths"), list) else exam
            for exam in case["imaging_examinations"]]
    if isinstance(case.get("images"), list):
        case["images"] = [
            {**entry, "path": mapping.get(entry["path"], entry["path"])}
            if isinstance(entry, dict) and isinstance(entry.get("path"), str) else entry
            for entry in case["images"]]
    return case


def _exam_captions(release: dict[str, Any]) -> dict[str, str]:
    return {
        str(e.get("figure")): str(e.get("image_caption"))
        for e in release.get("imaging_examinations") or []
        if isinstance(e, dict) and isinstance(e.get("image_caption"), str)
    }


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def ship_case_images(
    case: ReleasedCase,
    load: Callable[[Sequence[str]], dict[str, bytes]],
    write: Writer,
    *,
    include_dicom: bool,
    findings: list[str],
    renders: RenderCache | None = None,
    verdicts: TextVerdicts | None = None,
) -> list[ShippedImage]:
    """Write one case's image files through ``write`` and return their records.

    Privacy findings on the stored files are appended to ``findings`` (the caller stops
    the export when there are any). Raises ExportError for a DICOM that cannot be rendered.
    ``renders`` caches DICOM renders by content hash; every shipped PNG is still scanned.
    ``load`` reads the stored bytes of the images given by hash, all at once; a DICOM whose
    render is cached is not read unless the release ships the DICOM too.
    """
    cache = renders or RenderCache(None)
    gate = verdicts or TextVerdicts(None)
    mapping = path_map(case)
    folder = safe_case_dir(case.case_id)
    captions = _exam_captions(case.release)
    source_case_url = _text(case.release.get("source_url"))
    shipped: list[ShippedImage] = []
    rendered = {img.sha256: cache.cached(img.sha256) for img in case.images
                if img.media_type == DICOM}
    stored = load([img.sha256 for img in case.images
                   if include_dicom or rendered.get(img.sha256) is None])
    for img in case.images:
        target = mapping[img.draft_path]
        data = stored.get(img.sha256, b"")  # empty only for a DICOM whose render is kept
        render: dict[str, Any] | None = None
        dicom_path = None
        proven = False  # the PNG's rows inflated and checked (see png_proof)
        if img.media_type == DICOM:
            found = rendered.get(img.sha256)
            if found is None:
                found = _render(case.case_id, img.draft_path, data)
                cache.keep(img.sha256, found)
                rendered[img.sha256] = found
            out, render = found
            if include_dicom:
                dicom_path = f"{DICOM_DIR}/{folder}/{PurePosixPath(target).stem}.dcm"
                dicom_sha = sha256_hex(data)
                findings += image_findings(f"{case.case_id}: {dicom_path}", data, DICOM)
                if not img.text_reviewed:
                    findings += gate.findings(f"{case.case_id}: {dicom_path}", data, dicom_sha)
                write(dicom_path, data, dicom_sha)
            sha = sha256_hex(out)
            # A rendition the render cache kept was proven when first rendered: the gate
            # does not decode it again at every export.
            proven = pixels_only_proven(out, sha)
        else:
            out, sha, proven = _pixels_png(case.case_id, img.draft_path, data)
        # Each shipped file is hashed once, here: the gate's verdicts, images.csv and the
        # manifest all take this hash of the very bytes written.
        findings += image_findings(f"{case.case_id}: {target}", out, PNG, pixels_proven=proven)
        if not img.text_reviewed:
            findings += gate.findings(f"{case.case_id}: {target}", out, sha)
        media_type = PNG
        write(target, out, sha)
        attribution = img.attribution
        shipped.append(ShippedImage(
            image_id=target.removeprefix(f"{IMAGES_DIR}/"), case_id=case.case_id,
            figures=img.figures, path=target, name=img.name,
            caption=img.caption or next((captions[f] for f in img.figures if f in captions),
                                        None),
            source_url=_text(attribution.get("source_url")), source_case_url=source_case_url,
            author=_text(attribution.get("author")), license=_text(attribution.get("license")),
            sha256=sha, media_type=media_type, render=render, dicom_path=dicom_path,
        ))
    return shipped


def _render(case_id: str, draft_path: str, data: bytes) -> tuple[bytes, dict[str, Any]]:
    try:
        return render_png(data, name=draft_path)
    except (ImageDecodeError, IndexError, ValueError) as exc:
        raise ExportError(f"case {case_id}: {draft_path}: cannot render the DICOM as PNG:"
                          f" {exc}") from exc


def _pixels_png(case_id: str, draft_path: str, data: bytes) -> tuple[bytes, str, bool]:
    """The PNG to ship, its SHA-256, and whether its pixels are proven (it ships as stored).

    The stored bytes are hashed here, whatever the store says their hash is, so a proof kept
    for that hash (:func:`~annotator.imaging.png_proof.pixels_only_proven`) is a proof of
    these bytes."""
    sha = sha256_hex(data)
    if pixels_only_proven(data, sha):
        return data, sha, True  # as import wrote it from its pixels: encoding it adds nothing
    try:
        out = reencode_raster(data, name=draft_path)[0]
    except DeidentifyError as exc:
        raise ExportError(f"case {case_id}: {draft_path}: {exc.reason}") from exc
    return out, sha256_hex(out), False
