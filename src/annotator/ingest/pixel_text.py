"""Whether an image must be reviewed for text burned into its pixels, and why.

An image is flagged when OCR finds text in any frame, and always, whatever OCR says, when
its DICOM header says the pixels carry text or a face (``BurnedInAnnotation`` or
``RecognizableVisualFeatures`` YES), when its DICOM modality is one that usually carries
burned-in text, or when an exam it belongs to names ultrasound or a photograph in its
modality (see :data:`EXAM_WORDS`). Where Tesseract is missing every image is flagged
(fail closed), with the reason saying so.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from annotator.imaging.burned_text import OcrUnavailable, TextBox, find_text_cached, ocr_version
from annotator.imaging.decode import remember_parsed
from annotator.imaging.probe import DICOM, ImageDecodeError, sniff_media_type
from annotator.ingest.deidentify import read_dicom

# Ultrasound, secondary capture, other, external-camera photography, endoscopy, general
# microscopy, slide microscopy, document: these usually carry text in the pixels.
ALWAYS_FLAG_MODALITIES = frozenset({"US", "SC", "OT", "XC", "ES", "GM", "SM", "DOC"})
# Draft exam modality words -> why: ultrasound and photographs show text or faces.
EXAM_WORDS = {
    "ultrasound": "ultrasound", "sonograph": "ultrasound", "doppler": "ultrasound",
    "echocardiog": "ultrasound", "photo": "photograph", "clinical": "photograph",
    "dermatoscop": "photograph", "fundus": "photograph", "endoscop": "photograph",
}
_US = re.compile(r"(?<![a-z])us(?![a-z])")
HEADER_FLAGS = ("BurnedInAnnotation", "RecognizableVisualFeatures")


@dataclass(frozen=True)
class PixelCheck:
    """What the check found in one image's bytes: boxes (never text) and the reasons."""

    boxes: tuple[TextBox, ...]
    reasons: tuple[str, ...]
    checker: str

    @property
    def flagged(self) -> bool:
        return bool(self.reasons)

    def boxes_json(self) -> list[dict[str, Any]]:
        return [{"frame": t.frame, "box": t.box.as_list(), "confidence": round(t.confidence, 1),
                 **({} if t.read else {"read": False})} for t in self.boxes]


def check_pixels(data: bytes, *, name: str = "image", dataset: Any = None,
                 sha: str | None = None, pixels: Any = None) -> PixelCheck:
    """Check every frame of ``data`` (PNG, JPEG or DICOM) and its header's flags.

    ``dataset`` is the parsed DICOM when the caller has it (with ``sha``, the bytes' hash,
    its frames are decoded from it, not parsed again); ``pixels`` a PNG's or JPEG's decoded
    pixels. An unreadable image is flagged (its reason says so) rather than passed.
    """
    reasons = header_reasons(data, dataset)
    try:
        checker = f"tesseract {ocr_version()}"
    except OcrUnavailable as exc:
        return PixelCheck((), (*reasons, str(exc)), "none")
    try:
        if dataset is not None and sha is not None:
            remember_parsed(data, dataset, sha)
        boxes = tuple(find_text_cached(data, name=name, sha=sha, pixels=pixels))
    except (ImageDecodeError, IndexError, ValueError) as exc:
        return PixelCheck((), (*reasons, f"the pixels cannot be read to check them ({exc})"),
                          checker)
    except OcrUnavailable as exc:
        return PixelCheck((), (*reasons, str(exc)), "none")
    if boxes:
        read = sum(t.read for t in boxes)
        reasons = (f"text found in the pixels ({read} line(s) read, "
                   f"{len(boxes) - read} more marked)" if read < len(boxes) else
                   f"text found in the pixels ({read} line(s))", *reasons)
    return PixelCheck(boxes, reasons, checker)


def header_reasons(data: bytes, dataset: Any = None) -> tuple[str, ...]:
    """Why a DICOM header alone flags the image (empty for PNG and JPEG)."""
    if dataset is None:
        if sniff_media_type(data) != DICOM:
            return ()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                dataset = read_dicom(data)
        except Exception:  # noqa: BLE001 - the pixel check reports an unreadable file
            return ()
    found = [f"DICOM {keyword} is YES" for keyword in HEADER_FLAGS
             if str(dataset.get(keyword, "") or "").strip().upper() == "YES"]
    modality = str(dataset.get("Modality", "") or "").strip().upper()
    if modality in ALWAYS_FLAG_MODALITIES:
        found.append(f"DICOM modality {modality} usually carries burned-in text")
    return tuple(found)


def exam_reasons(modalities: Iterable[str]) -> list[str]:
    """Why the modality of an exam holding the image flags it (ultrasound, photograph)."""
    found: list[str] = []
    for modality in modalities:
        text = modality.lower()
        kinds = sorted({kind for word, kind in EXAM_WORDS.items() if word in text}
                       | ({"ultrasound"} if _US.search(text) else set()))
        found += [f"exam modality {modality!r} means {kind}" for kind in kinds]
    return found


def exam_modalities(content: dict[str, Any], figures: Iterable[str]) -> list[str]:
    """The draft's modality of each exam (by figure) that holds an image."""
    wanted = set(figures)
    out: list[str] = []
    for exam in content.get("imaging_examinations") or []:
        if isinstance(exam, dict) and str(exam.get("figure")) in wanted:
            meta = exam.get("meta_info")
            modality = meta.get("modality") if isinstance(meta, dict) else exam.get("modality")
            if isinstance(modality, str) and modality.strip():
                out.append(modality.strip())
    return out
