"""Shared DICOM plumbing: parse bytes once, keep a few datasets, explain pydicom's errors.

Private to ``annotator.imaging``; the public entry points are ``probe``, ``decode``,
``dicom_header`` and ``render``.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from annotator.imaging.limits import check_dicom_size

if TYPE_CHECKING:
    import numpy as np
    from pydicom.dataset import Dataset

# Groups a headerless (no preamble, no "DICM") dataset normally starts with.
_LEADING_GROUPS = frozenset({0x0002, 0x0008, 0x0010, 0x0018, 0x0020, 0x0028})
# pydicom's force=True "reads" almost any bytes; one of these proves it was really DICOM.
_EVIDENCE_TAGS = (0x00080016, 0x00080018, 0x00080060, 0x0020000D, 0x00280010, 0x7FE00010)
_PIXEL_KEYWORDS = ("PixelData", "FloatPixelData", "DoubleFloatPixelData")
_CACHE_SIZE = 4
_OBJECT_REPR = re.compile(r"\s*<[^<>]* object at 0x[0-9a-fA-F]+>")


def has_preamble(data: bytes) -> bool:
    """True when the Part 10 marker ``DICM`` sits at offset 128."""
    return len(data) >= 132 and data[128:132] == b"DICM"


def might_be_headerless(data: bytes) -> bool:
    """Cheap pre-check before asking pydicom to parse a file without a preamble."""
    if len(data) < 8:
        return False
    little = int.from_bytes(data[0:2], "little")
    big = int.from_bytes(data[0:2], "big")
    return little in _LEADING_GROUPS or big in _LEADING_GROUPS


def parse(data: bytes) -> Dataset:
    """Parse DICOM bytes (with or without a preamble); raises whatever pydicom raises.

    A headerless dataset gets the transfer syntax it was read with, so that its pixel
    data can be decoded like any other file's.
    """
    import pydicom
    from pydicom.uid import ExplicitVRBigEndian, ExplicitVRLittleEndian, ImplicitVRLittleEndian

    ds = pydicom.dcmread(io.BytesIO(data), force=True)
    if not has_preamble(data) and not any(tag in ds for tag in _EVIDENCE_TAGS):
        raise ValueError("no DICOM image attributes found")
    if "TransferSyntaxUID" not in ds.file_meta and ds.original_encoding is not None:
        implicit, little = ds.original_encoding
        if implicit:
            ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
        elif little:
            ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
        else:
            ds.file_meta.TransferSyntaxUID = ExplicitVRBigEndian
    return ds


def has_pixel_data(ds: Dataset) -> bool:
    """True when the dataset carries any kind of pixel data element."""
    return any(keyword in ds for keyword in _PIXEL_KEYWORDS)


def frame_count(ds: Dataset) -> int:
    """NumberOfFrames as an int (1 when absent); ValueError with a reason when malformed."""
    raw = ds.get("NumberOfFrames")
    if raw is None or str(raw).strip() == "":
        return 1
    try:
        count = int(str(raw).strip())
    except ValueError:
        raise ValueError(f"invalid NumberOfFrames {str(raw)!r}") from None
    if count < 1:
        raise ValueError(f"invalid NumberOfFrames {count}")
    return count


def transfer_syntax_name(ds: Dataset) -> str:
    """Readable transfer syntax name, e.g. 'JPEG-LS Lossless Image Compression'."""
    uid = ds.file_meta.get("TransferSyntaxUID") if hasattr(ds, "file_meta") else None
    if uid is None:
        return "unknown transfer syntax"
    return str(getattr(uid, "name", uid)) or str(uid)


def is_compressed(ds: Dataset) -> bool:
    """True for encapsulated (compressed) transfer syntaxes."""
    uid = ds.file_meta.get("TransferSyntaxUID") if hasattr(ds, "file_meta") else None
    return bool(uid is not None and getattr(uid, "is_compressed", False))


def decode_raw(ds: Dataset, frame: int) -> np.ndarray:
    """Stored values of one frame, native byte order; colour YBR is converted to RGB."""
    import numpy as np
    from pydicom.pixels.utils import pixel_array

    check_dicom_size(ds)  # a stored file is checked again before its pixels are decoded
    arr = pixel_array(ds, index=frame)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.ascontiguousarray(arr)


def decode_failure_reason(exc: BaseException, ds: Dataset) -> str:
    """Turn a pydicom decode exception into one readable sentence."""
    message = str(exc).strip()
    first = message.splitlines()[0] if message else type(exc).__name__
    if "number of bytes of pixel data is less than expected" in message:
        return "pixel data is truncated: " + first
    if is_compressed(ds):
        if "plugins are missing" in message or "no decoding plugins" in message.lower():
            detail = "no decoder installed for it"
        else:
            # pydicom lists each plugin's failure on its own line after a generic header.
            lines = [line.strip() for line in message.splitlines() if line.strip()]
            detail = "; ".join(lines[1:]) if len(lines) > 1 else first
        return f"cannot decode transfer syntax {transfer_syntax_name(ds)}: {_tidy(detail)}"
    return "cannot decode pixel data: " + _tidy(first)


def _tidy(text: str) -> str:
    """Drop object reprs such as ``<_io.BytesIO object at 0x7f..>`` from a message."""
    return _OBJECT_REPR.sub("", text).replace(" ;", ";").strip()


@dataclass
class CachedDataset:
    """A parsed dataset, the bytes it came from, and a lock serialising its decoding."""

    data: bytes
    ds: Dataset
    lock: threading.Lock = field(default_factory=threading.Lock)
    extra: dict[str, Any] = field(default_factory=dict)


_cache: OrderedDict[str, CachedDataset] = OrderedDict()
_cache_lock = threading.Lock()


def cached_parse(data: bytes, key: str | None = None) -> CachedDataset:
    """Parse ``data`` or return the cached parse (LRU of a few entries).

    The same ``bytes`` object is found by identity without hashing, so scrolling the
    frames of a large file costs no re-hash; otherwise ``key`` or the SHA-256 is used.
    """
    with _cache_lock:
        for cache_key, entry in _cache.items():
            if entry.data is data:
                _cache.move_to_end(cache_key)
                return entry
    digest = key or hashlib.sha256(data).hexdigest()
    with _cache_lock:
        found = _cache.get(digest)
        if found is not None and len(found.data) == len(data):
            _cache.move_to_end(digest)
            return found
    entry = CachedDataset(data=data, ds=parse(data))
    with _cache_lock:
        _cache[digest] = entry
        _cache.move_to_end(digest)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return entry


def remember(data: bytes, ds: Dataset, key: str) -> None:
    """Cache ``ds`` as the parse of ``data`` (a caller that parsed it already: import)."""
    with _cache_lock:
        _cache[key] = CachedDataset(data=data, ds=ds)
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def clear_cache() -> None:
    """Forget every cached dataset (tests and memory pressure)."""
    with _cache_lock:
        _cache.clear()
