"""Images with made-up text burned into their pixels, and where each string was drawn.

The matrix of issue 24: DejaVu fonts of 9-32 px, light on dark and dark on light, at the
borders and in the middle, as PNG, JPEG, 8- and 16-bit CT and MR DICOM, single and
multi-frame. Backgrounds are the bench's phantoms (or their negative, for dark text), so
the same generator gives the textless images the false-positive rate is measured on.
No modality among them is one that is flagged whatever OCR says.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from annotator.bench.images import phantom

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
FONT_NAMES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")
SIZES = (9, 10, 12, 14, 16, 20, 24, 28, 32)
KINDS = ("png", "jpeg", "ct16", "mr16", "ct8", "mr8", "mr16-multi", "ct8-multi")
PLACES = ("top-left", "bottom-right", "middle", "top-right")
STRINGS = ("DOE^JANE", "ID 48213977", "DOB 1961-03-14", "ST MARY HOSPITAL",
           "SMITH JOHN 5521", "MRN 0042198", "ACC 77X10423", "BERG^ANNA 04.07.1958")


VISIBLE = 0.1  # of the grey range: ink this close to the grey it covers cannot be seen


@dataclass
class Planted:
    """One string drawn on a frame, the box it was drawn in (x, y, w, h), and the box of
    its visible ink: the pixels at least half ink whose grey differs from the background
    they replaced by :data:`VISIBLE` (a letter drawn white on a white organ is not there
    to be read; None when no letter can be seen)."""

    text: str
    frame: int
    box: tuple[int, int, int, int]
    visible: tuple[int, int, int, int] | None = None


@dataclass
class TextImage:
    name: str
    data: bytes
    media_type: str
    planted: list[Planted] = field(default_factory=list)


def font_path(name: str = "DejaVuSans.ttf") -> Path:
    for folder in FONT_DIRS:
        if (folder / name).is_file():
            return folder / name
    import matplotlib  # DejaVu ships with matplotlib when the system has no fonts

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name


def _draw(canvas: np.ndarray, text: str, size: int, font_name: str, place: str,
          value: float, rng: np.random.Generator
          ) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int] | None]:
    """Draw ``text`` into the float ``canvas`` at ``value``; returns its box and the box
    of its visible ink."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(font_path(font_name)), size)
    height, width = canvas.shape
    left, top, right, bottom = font.getbbox(text)
    w, h = right - left, bottom - top
    margin = int(rng.integers(3, 10))
    x = {"top-left": margin, "top-right": width - w - margin,
         "bottom-right": width - w - margin, "middle": (width - w) // 2}[place]
    y = {"top-left": margin, "top-right": margin, "bottom-right": height - h - margin,
         "middle": (height - h) // 2 + int(rng.integers(-20, 20))}[place]
    x, y = max(0, x), max(0, y)
    mask = Image.new("L", (width, height), 0)
    ImageDraw.Draw(mask).text((x - left, y - top), text, font=font, fill=255)
    alpha = np.asarray(mask, dtype=np.float32) / 255.0
    seen = (alpha >= 0.5) & (np.abs(canvas - value) >= VISIBLE)
    canvas *= 1 - alpha
    canvas += alpha * value
    rows, cols = np.nonzero(seen)
    visible = (None if rows.size == 0 else
               (int(cols.min()), int(rows.min()), int(cols.max() - cols.min() + 1),
                int(rows.max() - rows.min() + 1)))
    return (x, y, min(w, width - x), min(h, height - y)), visible


def text_image(index: int, *, with_text: bool = True, size: int = 320) -> TextImage:
    """The ``index``-th image of the matrix (deterministic); textless when asked."""
    rng = np.random.default_rng(2400 + index)
    kind = KINDS[index % len(KINDS)]
    font_size = SIZES[(index // len(KINDS)) % len(SIZES)]
    dark_text = (index + index // len(KINDS) + index // (len(KINDS) * len(SIZES))) % 2 == 1
    frames = 3 if kind.endswith("multi") else 1
    stack = [phantom(rng, size) for _ in range(frames)]
    if dark_text:
        stack = [0.35 + 0.65 * (1.0 - f) for f in stack]  # a light background
    planted: list[Planted] = []
    if with_text:
        for number in range(2):
            frame = (index + number) % frames
            text = STRINGS[(index + 3 * number) % len(STRINGS)]
            place = PLACES[(index + number) % len(PLACES)] if number == 0 else (
                PLACES[(index + number + 1) % len(PLACES)])
            font = FONT_NAMES[(index + number) % len(FONT_NAMES)]
            box, visible = _draw(stack[frame], text, font_size, font, place,
                                 0.0 if dark_text else 1.0, rng)
            planted.append(Planted(text, frame, box, visible))
    name = f"{index:03d}-{kind}-{font_size}px-{'dark' if dark_text else 'light'}"
    if kind in ("png", "jpeg"):
        return TextImage(name, _raster(stack[0], kind), f"image/{kind}", planted)
    modality = "CT" if kind.startswith("ct") else "MR"
    bits = 8 if "8" in kind else 16
    return TextImage(name, _dicom(np.stack(stack), modality, bits, index), "application/dicom",
                     planted)


def _raster(image: np.ndarray, kind: str) -> bytes:
    from PIL import Image

    pixels = (np.clip(image, 0, 1) * 255).round().astype(np.uint8)
    buffer = io.BytesIO()
    if kind == "jpeg":
        Image.fromarray(pixels, "L").save(buffer, "JPEG", quality=88)
    else:
        Image.fromarray(pixels, "L").save(buffer, "PNG")
    return buffer.getvalue()


def _dicom(stack: np.ndarray, modality: str, bits: int, index: int) -> bytes:
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import UID, ExplicitVRLittleEndian, generate_uid

    top = 255 if bits == 8 else 4000
    pixels = (np.clip(stack, 0, 1) * top).round().astype(np.uint8 if bits == 8 else np.uint16)
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = UID("1.2.840.10008.5.1.4.1.1.4" if modality == "MR"
                                       else "1.2.840.10008.5.1.4.1.1.2")
    meta.MediaStorageSOPInstanceUID = generate_uid(entropy_srcs=["text", str(index)])
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = meta.MediaStorageSOPClassUID
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.StudyInstanceUID = generate_uid(entropy_srcs=["text", str(index), "study"])
    ds.SeriesInstanceUID = generate_uid(entropy_srcs=["text", str(index), "series"])
    ds.Modality = modality
    ds.Rows, ds.Columns = int(stack.shape[1]), int(stack.shape[2])
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.BitsAllocated = bits
    ds.BitsStored, ds.HighBit = (8, 7) if bits == 8 else (12, 11)
    ds.PixelRepresentation = 0
    if modality == "CT":
        ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
    if len(stack) > 1:
        ds.NumberOfFrames = len(stack)
    ds.PixelData = pixels.tobytes()
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()
