"""Text burned into an image's pixels: a fast prefilter, then OCR of its candidate lines only.

The prefilter works on the displayed (8-bit) frame: a morphological gradient marks strong
edges, connected components of the edge mask that are the size of a glyph (anatomy's
contours are long and join into large components) are merged along the row, and a run of
at least three glyph-sized components of similar height is a candidate text line. A
textless image is rejected there, in about a millisecond. Each candidate line is cut out
with a margin, made dark text on white (light-on-dark text, the usual overlay, is
inverted) and upscaled until its letters are about 32 pixels high, the size Tesseract
reads best; all lines of a frame go to Tesseract in one call, stacked, so a frame costs
one OCR run however many lines it has. A word counts when Tesseract is confident of it
and it holds at least two letters or digits: single marks (an "L", a scale tick) and
texture read as punctuation do not.

Only boxes and confidences leave this module, never the recognised text (that would copy
an identifier into the project database).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from annotator.imaging.decode import decode_frame
from annotator.userdirs import user_cache_dir

_CONTRAST_MIN = 60  # of 255: burned-in overlays are drawn to be read
_GLYPH_HEIGHT = (4, 64)  # displayed pixels: 9-32 px fonts give 5-40 px high strokes
_GLYPH_MAX_WIDTH_RATIO = 3.0  # a glyph (or two touching ones) is not much wider than high
_MIN_GLYPHS = 3
_LINE_HEIGHT_SPREAD = 3.0  # tallest / median glyph height within one line
_TARGET_LETTER = 32  # pixels: the letter height Tesseract reads best
_MAX_UPSCALE = 4
_MIN_CONFIDENCE = 50.0  # Tesseract's word confidence, 0-100
_MIN_ALNUM = 2
_GAP = 24  # white pixels between stacked lines
_MAX_INK = 0.5  # text covers less of its line's box than the background does

_WINDOW = (0.5, 99.5)  # percentiles the prefilter and OCR read a frame through
_WIDE = (0.2, 99.8)  # what a line is grown along: text drawn at the extremes of a frame

TESSERACT_ENV = "ANNOTATOR_TESSERACT"


@dataclass(frozen=True)
class Box:
    """A rectangle in frame pixels: left, top, width, height."""

    x: int
    y: int
    w: int
    h: int

    def as_list(self) -> list[int]:
        return [self.x, self.y, self.w, self.h]


@dataclass(frozen=True)
class Candidate:
    """A run of strokes that may be a line of text, and whether its strokes are light."""

    box: Box
    light: bool


@dataclass(frozen=True)
class TextBox:
    """Text in a frame: where, and how sure Tesseract was (0-100).

    ``read`` is False for a region the prefilter marked as a line of text on a frame where
    OCR read text elsewhere but not there (small or faint text Tesseract misses beside text
    it reads): proposed for redaction, never counted as text found.
    """

    frame: int
    box: Box
    confidence: float
    read: bool = True


class OcrUnavailable(RuntimeError):
    """Tesseract cannot be run; the message says how the app looks for it."""


# --- the prefilter -----------------------------------------------------------------------


def grey_u8(pixels: np.ndarray) -> np.ndarray:
    """Displayed pixels (uint8 grey or RGB) as uint8 grey (ITU-R BT.601 luma)."""
    if pixels.ndim == 2:
        return pixels
    weights = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    return (pixels[..., :3].astype(np.float32) @ weights).astype(np.uint8)


def strokes(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Thin light strokes and thin dark strokes: white and black top-hats.

    Opening and closing with a square wider than a letter's stroke remove the strokes and
    keep everything wider (organs, bone, a step edge), so what differs is the strokes of
    text (and thin vessels or noise, which OCR then rejects).
    """
    opened = _square(_square(grey, np.minimum), np.maximum)
    closed = _square(_square(grey, np.maximum), np.minimum)
    light = grey - opened  # uint8: opened <= grey
    dark = closed - grey
    return light >= _CONTRAST_MIN, dark >= _CONTRAST_MIN


def _square(pixels: np.ndarray, op: np.ufunc) -> np.ndarray:
    """Minimum or maximum over a 7 x 7 square around each pixel (edges repeated).

    Three pairwise steps per axis (windows of 2, 4, 7): a dozen whole-array operations,
    several times faster than scipy's general filters on small uint8 frames.
    """
    out = pixels
    for axis in (0, 1):
        padded = np.pad(out, [(3, 3) if a == axis else (0, 0) for a in (0, 1)], mode="edge")
        two = op(_cut(padded, axis, 0, -1), _cut(padded, axis, 1, None))
        four = op(_cut(two, axis, 0, -2), _cut(two, axis, 2, None))
        out = op(_cut(four, axis, 0, -3), _cut(four, axis, 3, None))
    return out


def _cut(array: np.ndarray, axis: int, start: int, stop: int | None) -> np.ndarray:
    return array[start:stop] if axis == 0 else array[:, start:stop]


def candidate_lines(grey: np.ndarray) -> list[Candidate]:
    """Boxes of the runs of glyph-like strokes that may be a line of text (frame pixels).

    Light and dark strokes are read apart: between the dark letters of a line lie thin
    light gaps, which would join the letters into one blob.
    """
    light, dark = strokes(grey)
    return ([Candidate(box, True) for box in _lines(light)]
            + [Candidate(box, False) for box in _lines(dark)])


def _lines(mask: np.ndarray) -> list[Box]:
    # Three glyphs at least _GLYPH_HEIGHT[0] rows high hold at least that many pixels each:
    # a mask with fewer (most textless frames' few specks) has no line, and is not labelled.
    if np.count_nonzero(mask) < _MIN_GLYPHS * _GLYPH_HEIGHT[0]:
        return []
    from scipy import ndimage  # half a second to import: not on the app's way to a case

    labels, count = ndimage.label(mask, structure=np.ones((3, 3), dtype=bool))
    if count < _MIN_GLYPHS:
        return []
    slices = ndimage.find_objects(labels)
    heights = np.array([s[0].stop - s[0].start for s in slices])
    widths = np.array([s[1].stop - s[1].start for s in slices])
    glyph = ((heights >= _GLYPH_HEIGHT[0]) & (heights <= _GLYPH_HEIGHT[1])
             & (widths <= heights * _GLYPH_MAX_WIDTH_RATIO))
    if int(glyph.sum()) < _MIN_GLYPHS:
        return []
    keep = np.concatenate(([False], glyph))[labels]  # label 0 is the background
    # Strokes of a word or line lie within about a letter's height of each other.
    gap = max(4, int(np.median(heights[glyph]) * 1.5))
    joined = ndimage.binary_dilation(keep, structure=np.ones((1, gap), dtype=bool))
    lines, _ = ndimage.label(joined)
    boxes: list[Box] = []
    for index, line in enumerate(ndimage.find_objects(lines), start=1):
        if line is None:
            continue
        members = np.unique(labels[line][keep[line] & (lines[line] == index)])
        if len(members) < _MIN_GLYPHS:
            continue
        member_heights = heights[members - 1]
        if member_heights.max() > _LINE_HEIGHT_SPREAD * np.median(member_heights):
            continue
        top, bottom = line[0].start, line[0].stop
        left = line[1].start + gap // 2
        right = line[1].stop - gap // 2
        if right - left < 1.5 * (bottom - top):
            continue  # a line of text is wider than high
        boxes.append(Box(int(left), int(top), int(right - left), int(bottom - top)))
    return boxes


# --- OCR -------------------------------------------------------------------------------


def tesseract_command() -> str | None:
    """The Tesseract program: ``$ANNOTATOR_TESSERACT`` when set, else ``tesseract`` on PATH."""
    configured = os.environ.get(TESSERACT_ENV, "").strip()
    if configured:
        return configured if os.path.isfile(configured) else None
    return shutil.which("tesseract")


@functools.cache
def _tesseract_version(command: str) -> str:
    """``tesseract --version``'s number, read as pytesseract reads it, without importing
    pytesseract (and pandas with it: 1.5 s), so that an export whose verdicts are all kept
    does not pay for it."""
    try:
        out = subprocess.run([command, "--version"], capture_output=True, check=True,
                             stdin=subprocess.DEVNULL, timeout=60)
        words = (out.stdout + out.stderr).decode("utf-8", errors="replace").split()
        word = words[[w.lower() for w in words].index("tesseract") + 1]
        version = word.lstrip("vV").partition("-")[0]  # "v5.3.0.2022" on Windows builds
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        raise OcrUnavailable(f"Tesseract at {command} does not run: {exc}") from None
    if not version[:1].isdigit():
        raise OcrUnavailable(f"Tesseract at {command} gives no version number")
    return version


def ocr_version() -> str:
    """Tesseract's version; raises :class:`OcrUnavailable` with how it was looked for."""
    command = tesseract_command()
    if command is None:
        raise OcrUnavailable(
            "Tesseract OCR is not installed, so text burned into images cannot be read and"
            " every image is flagged for review (install the tesseract-ocr and"
            f" tesseract-ocr-eng packages, or set ${TESSERACT_ENV} to the tesseract program)")
    return _tesseract_version(command)


def _line_crop(grey: np.ndarray, candidate: Candidate) -> np.ndarray | None:
    """The line with a margin as black text on white, upscaled; None when what would be
    the text covers most of the crop (the gaps between letters of the other polarity)."""
    box = candidate.box
    margin, side = max(2, box.h // 3), max(3, box.h // 2)
    top, left = max(0, box.y - margin), max(0, box.x - side)
    crop = grey[top:box.y + box.h + margin, left:box.x + box.w + side]
    if candidate.light:
        crop = 255 - crop
    scale = int(np.clip(round(_TARGET_LETTER / max(box.h, 1)), 1, _MAX_UPSCALE))
    if scale > 1:
        from PIL import Image

        image = Image.fromarray(np.ascontiguousarray(crop))
        crop = np.asarray(image.resize((crop.shape[1] * scale, crop.shape[0] * scale),
                                       Image.Resampling.BICUBIC))
    # Black text on white, whatever the background's grey: Tesseract reads binary best.
    text = crop <= _otsu(crop)
    if text.mean() > _MAX_INK:
        return None
    return np.where(_inside(text), 0, 255).astype(np.uint8)


def _inside(ink: np.ndarray) -> np.ndarray:
    """The ink without the parts that touch the crop's edge: background (the edge of the
    body, a bright corner) that binarisation put on the text's side, never a letter of the
    line, which lies inside the margins."""
    from scipy import ndimage

    labels, _ = ndimage.label(ink)
    edge = np.unique(np.concatenate((labels[0], labels[-1], labels[:, 0], labels[:, -1])))
    return ink & ~np.isin(labels, edge[edge > 0])


def _otsu(pixels: np.ndarray) -> int:
    """Otsu's threshold of a uint8 array (the grey level splitting it into two classes)."""
    counts = np.bincount(pixels.ravel(), minlength=256).astype(np.float64)
    levels = np.arange(256, dtype=np.float64)
    weight = np.cumsum(counts)
    mean = np.cumsum(counts * levels)
    total, total_mean = weight[-1], mean[-1]
    background = total - weight
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (total_mean * weight - mean * total) ** 2 / (weight * background)
    return int(np.nanargmax(np.where(background > 0, between, np.nan)))


def _stack(crops: list[np.ndarray]) -> tuple[np.ndarray, list[int]]:
    """Crops one below the other on white; the top row of each."""
    width = max(c.shape[1] for c in crops) + 2 * _GAP
    height = sum(c.shape[0] for c in crops) + _GAP * (len(crops) + 1)
    sheet = np.full((height, width), 255, dtype=np.uint8)
    tops: list[int] = []
    y = _GAP
    for crop in crops:
        sheet[y:y + crop.shape[0], _GAP:_GAP + crop.shape[1]] = crop
        tops.append(y)
        y += crop.shape[0] + _GAP
    return sheet, tops


def _read_words(sheet: np.ndarray) -> list[tuple[int, float]]:
    """(vertical centre, confidence) of every word Tesseract is sure of on the sheet."""
    import pytesseract
    from PIL import Image

    command = tesseract_command()
    if command is None:
        ocr_version()  # raises with the explanation
    pytesseract.pytesseract.tesseract_cmd = str(command)
    data = pytesseract.image_to_data(Image.fromarray(sheet), lang="eng", config="--psm 6",
                                     output_type=pytesseract.Output.DICT)
    words: list[tuple[int, float]] = []
    for text, conf, top, height in zip(data["text"], data["conf"], data["top"],
                                       data["height"], strict=True):
        confidence = float(conf)
        alnum = sum(ch.isalnum() for ch in str(text))
        if confidence >= _MIN_CONFIDENCE and alnum >= _MIN_ALNUM:
            words.append((int(top) + int(height) // 2, confidence))
    return words


def ocr_lines(grey: np.ndarray, candidates: list[Candidate], frame: int = 0, *,
              wide: np.ndarray | None = None) -> list[TextBox]:
    """The candidate lines in which Tesseract reads a word, each with its best confidence,
    and the frame's other candidate lines, unread (see :func:`_unread`; an image keeps them
    only where OCR read text in it); boxes are grown along their rows on ``wide`` (the
    frame through a wider window) if given."""
    if not candidates:
        return []
    crops = [(i, crop) for i, c in enumerate(candidates)
             if (crop := _line_crop(grey, c)) is not None]
    if not crops:
        return []
    sheet, tops = _stack([crop for _, crop in crops])
    best: dict[int, float] = {}
    for centre, confidence in _read_words(sheet):
        for (index, crop), top in zip(crops, tops, strict=True):
            if top <= centre < top + crop.shape[0]:
                best[index] = max(best.get(index, 0.0), confidence)
    along = grey if wide is None else wide
    found = _join_lines([TextBox(frame, _whole_line(along, candidates[i].box, candidates),
                                 best[i]) for i in sorted(best)])
    return found + _unread(along, candidates, found, frame)


def _whole_line(grey: np.ndarray, box: Box, candidates: list[Candidate]) -> Box:
    """The box to black out for a line: grown by the candidates beside it, then along its
    row while fainter strokes go on (letters over a background that took the prefilter's
    contrast away), then by a margin for anti-aliased edges."""
    return _cover(_along_row(grey, _line_of(box, candidates)), grey.shape)


def _along_row(grey: np.ndarray, box: Box) -> Box:
    """``box`` widened left and right while strokes of half the prefilter's contrast
    continue in its rows, with gaps no wider than a word space (the line's height)."""
    pad = 3
    top, bottom = max(0, box.y - pad), min(grey.shape[0], box.y + box.h + pad)
    band = grey[top:bottom]
    opened = _square(_square(band, np.minimum), np.maximum)
    closed = _square(_square(band, np.maximum), np.minimum)
    faint = _CONTRAST_MIN // 3
    ink = ((band - opened) >= faint) | ((closed - band) >= faint)
    rows = slice(box.y - top, box.y - top + box.h)
    columns = ink[rows].any(axis=0)
    gap = max(4, 3 * box.h)
    left, right = box.x, box.x + box.w
    while True:
        before = columns[max(0, left - gap):left]
        if not before.any():
            break
        left = max(0, left - gap) + int(np.argmax(before))
    while True:
        after = columns[right:right + gap]
        if not after.any():
            break
        right = right + len(after) - int(np.argmax(after[::-1]))
    return Box(left, box.y, right - left, box.h)


def _unread(grey: np.ndarray, candidates: list[Candidate], found: list[TextBox],
            frame: int) -> list[TextBox]:
    """The prefilter's other lines on a frame where OCR read text, as proposed boxes: a
    frame that carries text usually carries more of it, in the same overlay, and a line
    Tesseract could not read is still a line a person must look at."""
    extra: list[TextBox] = []
    for candidate in candidates:
        box = _whole_line(grey, candidate.box, candidates)
        if not any(_contains(t.box, box) for t in [*found, *extra]):
            extra.append(TextBox(frame, box, 0.0, read=False))
    return extra


def _contains(outer: Box, inner: Box) -> bool:
    return (outer.x <= inner.x and outer.y <= inner.y and inner.x + inner.w <= outer.x + outer.w
            and inner.y + inner.h <= outer.y + outer.h)


def _line_of(box: Box, candidates: list[Candidate]) -> Box:
    """``box`` grown by the candidates beside it on the same row (a line the prefilter
    split, or read in the other polarity), so the whole line is covered."""
    x0, y0, x1, y1 = box.x, box.y, box.x + box.w, box.y + box.h
    grown = True
    while grown:
        grown = False
        for other in (c.box for c in candidates):
            overlap = min(y1, other.y + other.h) - max(y0, other.y)
            near = max(other.x - x1, x0 - (other.x + other.w)) <= 2 * (y1 - y0)
            inside = (other.x >= x0 and other.x + other.w <= x1 and other.y >= y0
                      and other.y + other.h <= y1)
            if overlap >= 0.5 * min(other.h, y1 - y0) and near and not inside:
                x0, y0 = min(x0, other.x), min(y0, other.y)
                x1, y1 = max(x1, other.x + other.w), max(y1, other.y + other.h)
                grown = True
    return Box(x0, y0, x1 - x0, y1 - y0)


def _cover(box: Box, shape: tuple[int, ...]) -> Box:
    """The line's box grown to cover anti-aliased edges and descenders, inside the frame;
    a line that nearly reaches an edge of the frame runs on to it (text cut by the edge)."""
    pad, side = max(2, box.h // 4), max(3, box.h // 2)  # a "T" overhangs its stroke
    height, width = int(shape[0]), int(shape[1])
    x, y = max(0, box.x - side), max(0, box.y - pad)
    right, bottom = min(width, box.x + box.w + side), min(height, box.y + box.h + pad)
    x, y = (0 if x <= side else x), (0 if y <= pad else y)
    right = width if width - right <= side else right
    bottom = height if height - bottom <= pad else bottom
    return Box(x, y, right - x, bottom - y)


def _same_line(a: Box, b: Box) -> bool:
    overlap = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    gap = max(b.x - (a.x + a.w), a.x - (b.x + b.w))
    return overlap >= 0.5 * min(a.h, b.h) and gap <= 3 * max(a.h, b.h)


def _join_lines(found: list[TextBox]) -> list[TextBox]:
    """Boxes of one line read in pieces become one box (the gap between them is text)."""
    joined = list(found)
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(joined):
            j = next((j for j in range(i + 1, len(joined)) if joined[j].frame == a.frame
                      and _same_line(a.box, joined[j].box)), None)
            if j is None:
                continue
            b = joined.pop(j)
            x, y = min(a.box.x, b.box.x), min(a.box.y, b.box.y)
            box = Box(x, y, max(a.box.x + a.box.w, b.box.x + b.box.w) - x,
                      max(a.box.y + a.box.h, b.box.y + b.box.h) - y)
            joined[i] = TextBox(a.frame, box, max(a.confidence, b.confidence))
            merged = True
            break
    return joined


def find_text(grey: np.ndarray, frame: int = 0) -> list[TextBox]:
    """Text lines in one displayed frame (uint8 grey); raises :class:`OcrUnavailable`."""
    return _if_read(ocr_lines(grey, candidate_lines(grey), frame))


def merge_boxes(found: Iterable[TextBox]) -> list[TextBox]:
    """Boxes in reading order (frame, top, left), for stable storage."""
    return sorted(found, key=lambda t: (t.frame, t.box.y, t.box.x))


def displayed_frames(data: bytes, *, name: str = "image") -> Iterable[tuple[int, np.ndarray]]:
    """(index, uint8 grey) of every frame as the prefilter reads it: grey through its
    0.5-99.5 percentile window (overlay text sits at the extremes), colour as luma."""
    first = decode_frame(data, 0, name=name, percentiles=False)
    for index in range(first.frames):
        decoded = first if index == 0 else decode_frame(data, index, name=name,
                                                        percentiles=False)
        yield index, _display(decoded.array, decoded.is_color)


def _display(array: np.ndarray, is_color: bool,
             percentiles: tuple[float, float] = _WINDOW) -> np.ndarray:
    if is_color:
        return grey_u8(array if array.dtype == np.uint8 else _stretch(array, percentiles))
    return _stretch(array, percentiles)


def _stretch(values: np.ndarray, percentiles: tuple[float, float] = _WINDOW) -> np.ndarray:
    """Grey values -> uint8 over their percentiles (by default 0.5-99.5), estimated on
    every 4th pixel of every 4th row (a sixteenth of the work; the window need not be
    exact)."""
    sample = values[::4, ::4]
    finite = sample[np.isfinite(sample)] if sample.dtype.kind == "f" else sample.ravel()
    if finite.size == 0:
        return np.zeros(values.shape[:2], dtype=np.uint8)
    low, high = (float(v) for v in np.percentile(finite, percentiles))
    scale = 255.0 / max(high - low, 1e-6)
    return _to_u8(values, low, scale)


def _to_u8(values: np.ndarray, low: float, scale: float) -> np.ndarray:
    out = (np.asarray(values, dtype=np.float32) - np.float32(low)) * np.float32(scale)
    np.clip(out, 0, 255, out=out)
    if values.dtype.kind == "f":
        np.nan_to_num(out, copy=False)
    result: np.ndarray = out.astype(np.uint8)
    return result


def find_text_in_image(data: bytes, *, name: str = "image", key: str | None = None,
                       pixels: np.ndarray | None = None) -> list[TextBox]:
    """Text lines in every frame of a PNG, JPEG or DICOM file; raises ImageDecodeError for
    an unreadable file and :class:`OcrUnavailable` when a candidate needs OCR and there is
    none.

    A caller that decoded the file already says so, and it is not decoded again: ``pixels``
    are a PNG's or JPEG's (as ``read_raster`` gives them); ``key`` is the hash a DICOM's
    parse was cached under (``decode.remember_parsed``)."""
    if pixels is not None:
        return _if_read(find_text_in_frame(pixels, pixels.ndim == 3, 0))
    first = decode_frame(data, 0, name=name, percentiles=False, key=key)
    found: list[TextBox] = []
    for index in range(first.frames):
        decoded = first if index == 0 else decode_frame(data, index, name=name,
                                                        percentiles=False, key=key)
        found += find_text_in_frame(decoded.array, decoded.is_color, index)
    return _if_read(found)


def _if_read(found: list[TextBox]) -> list[TextBox]:
    """The boxes in reading order when OCR read text somewhere in the image, else none: the
    prefilter's unread lines are proposed only beside text OCR could read."""
    return merge_boxes(found) if any(t.read for t in found) else []


def find_text_in_frame(array: np.ndarray, is_color: bool, frame: int = 0) -> list[TextBox]:
    """Text lines in one decoded frame (its stored values): read through the usual window,
    each line's box grown through a wider one, where text drawn at the very extremes of the
    stored values (black on a dark organ) still shows."""
    grey = _display(array, is_color)
    candidates = candidate_lines(grey)
    if not candidates:
        return []
    wide = grey if is_color and array.dtype == np.uint8 else _display(array, is_color, _WIDE)
    return ocr_lines(grey, candidates, frame, wide=wide)


# --- verdicts cached by content --------------------------------------------------------------


# The code a verdict depends on: this module, and the decoding that gives it the pixels.
_CODE = ("burned_text.py", "decode.py", "_dicom.py", "_raster.py")


@functools.cache
def detector_version() -> str | None:
    """What a cached verdict depends on: the detector's code and Tesseract's version (None
    when the code cannot be read, as in a build without sources: then nothing is cached).
    Raises :class:`OcrUnavailable` without Tesseract."""
    digest = hashlib.sha256()
    try:
        for name in _CODE:
            digest.update((Path(__file__).parent / name).read_bytes())
    except OSError:
        return None
    return f"{digest.hexdigest()[:16]}-{ocr_version()}"


def _cache_file(data: bytes, sha: str | None) -> Path | None:
    folder, version = user_cache_dir(), detector_version()
    if str(folder) == "off" or version is None:
        return None
    sha = sha or hashlib.sha256(data).hexdigest()
    return folder / "burned-text" / version / sha[:2] / f"{sha}.json"


def find_text_cached(data: bytes, *, name: str = "image", sha: str | None = None,
                     pixels: np.ndarray | None = None) -> list[TextBox]:
    """:func:`find_text_in_image`, its answer kept in the user's cache folder by the bytes'
    SHA-256 and the detector's version (code and Tesseract), so building the demo again or
    importing the same images into another project costs a file read each. Only boxes and
    confidences are kept, never text. ``sha`` is the bytes' SHA-256 when the caller has
    it; ``pixels`` and ``sha`` as for :func:`find_text_in_image` (its ``key``)."""
    path = _cache_file(data, sha)
    if path is not None:
        try:
            rows = json.loads(path.read_text("ascii"))
            return [TextBox(int(r[0]), Box(*(int(v) for v in r[1])), float(r[2]), bool(r[3]))
                    for r in rows]
        except (OSError, ValueError, TypeError, IndexError):
            pass  # not cached yet (or unreadable): check again
    found = find_text_in_image(data, name=name, key=sha, pixels=pixels)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.partial")
            partial.write_text(json.dumps([[t.frame, t.box.as_list(), t.confidence, t.read]
                                           for t in found]), "ascii")
            os.replace(partial, path)
        except OSError:
            pass  # a cache that cannot be written only costs time
    return found
