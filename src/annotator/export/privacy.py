"""The export's privacy gate: it proves each shipped file clean, or stops the export.

It does not trust import's de-identification, nor any flag a file sets about itself
(``PatientIdentityRemoved``, ``DeidentificationMethod``): it reads the bytes that are about to
be written and fails closed. A PNG may hold only the pixel chunks (IHDR, PLTE, tRNS, IDAT,
IEND), each with a valid CRC, nothing after IEND, and must decode; a DICOM file only the
allow-listed elements of DICOM PS3.15 Annex E as :mod:`annotator.ingest.dicom_profile` reads
it, a zero preamble and the standard file meta; any other file, or one it cannot parse, is a
finding that names it. Release text that names a user of the project is a finding too (the
release promises pseudonyms only). Burned-in text inside the pixels is not detected.
"""

from __future__ import annotations

import functools
import io
import re
import struct
import warnings
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from annotator.export.errors import ExportError
from annotator.imaging.dicom_header import acquisition_label
from annotator.imaging.png_proof import PNG_PIXEL_CHUNKS, PNG_SIGNATURE
from annotator.imaging.probe import DICOM, PNG
from annotator.ingest.deidentify import read_dicom
from annotator.ingest.dicom_profile import (
    CONTRAST_WORD,
    EMPTIED,
    EMPTIED_IF_PRESENT,
    FILE_META_KEEP,
    KEEP,
    NATIVE_SYNTAXES,
    WRITTEN,
)
from annotator.ingest.dicom_terms import DEID_CODE, DEID_METHOD, TEXT_VRS, allowed_term, values_of


class PrivacyError(ExportError):
    """The gate found something identifying; ``findings`` lists each one (file: what)."""

    def __init__(self, findings: list[str]) -> None:
        lines = "\n".join(f"  {f}" for f in findings)
        super().__init__(
            f"the privacy gate stopped the export ({len(findings)} finding(s)); nothing was"
            f" written:\n{lines}"
        )
        self.findings = findings


def image_findings(label: str, data: bytes, media_type: str, *, pixels_proven: bool = False
                   ) -> list[str]:
    """Why one release file cannot be shown clean (empty: it is pixels and allowed header).

    ``pixels_proven``: :func:`~annotator.imaging.png_proof.png_pixels_only` already inflated
    and checked the PNG's every row, which proves it decodes; it is not decoded again."""
    if media_type == PNG:
        return [f"{label}: {item}" for item in png_findings(data, pixels_proven=pixels_proven)]
    if media_type == DICOM:
        return [f"{label}: {item}" for item in dicom_findings(data)]
    return [f"{label}: a {media_type!r} file cannot be proven free of metadata; only PNG and"
            " de-identified DICOM ship"]


def png_findings(data: bytes, *, pixels_proven: bool = False) -> list[str]:
    """Every chunk that is not pixels, every structural fault; a PNG that does not decode.

    With ``pixels_proven`` (see :func:`image_findings`) the PNG is not decoded and its CRCs
    are not computed again: the proof checked both on these very bytes. Every chunk's type
    and length are still read here."""
    if not data.startswith(PNG_SIGNATURE):
        return ["not a PNG file"]
    found: list[str] = []
    view = memoryview(data)  # the CRC reads each chunk in place, not a copy of it
    pos = len(PNG_SIGNATURE)
    while True:
        if pos + 12 > len(data):
            return found + ["the PNG ends before its IEND chunk"]
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = pos + 12 + length
        label = kind.decode("latin-1")
        if end > len(data):
            return found + [f"PNG chunk {label!r} is truncated"]
        (crc,) = struct.unpack_from(">I", data, end - 4)
        if not pixels_proven and zlib.crc32(view[pos + 4:end - 4]) != crc:
            return found + [f"PNG chunk {label!r} has a bad CRC"]
        if kind not in PNG_PIXEL_CHUNKS:
            found.append(f"PNG {label!r} chunk present (only pixel chunks may ship)")
        pos = end
        if kind == b"IEND":
            break
    if pos != len(data):
        found.append(f"{len(data) - pos} bytes after the PNG's IEND")
    if not found and not pixels_proven and not _decodes(data):
        found.append("the PNG does not decode")
    return found


def _decodes(data: bytes) -> bool:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except Exception:  # noqa: BLE001 - any failure means "not proven"
        return False
    return True


def dicom_findings(data: bytes) -> list[str]:
    """What in a DICOM file is outside the de-identification profile (flags not trusted)."""
    if data[128:132] != b"DICM":
        return ["not a DICOM Part 10 file (de-identified files are written as Part 10)"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = read_dicom(data)
            return _dicom_violations(ds)
    except Exception as exc:  # noqa: BLE001 - unreadable means unproven: refuse it
        return [f"DICOM cannot be read to check it ({exc})"]


def _dicom_violations(ds: Any) -> list[str]:
    found: list[str] = []
    if "PixelData" not in ds:
        found.append("no pixel data: not an image the release can ship")
    else:
        found += _pixel_data_violations(ds)
    if ds.preamble is not None and any(ds.preamble):
        found.append("the 128-byte preamble is not zeroed")
    extra_meta = [e.keyword or str(e.tag) for e in ds.file_meta
                  if e.tag.is_private or e.keyword not in FILE_META_KEEP]
    if extra_meta:
        found.append(f"file meta element(s) outside the profile: {', '.join(extra_meta)}")
    outside: list[str] = []
    ds.walk(lambda _ds, elem: outside.append(elem.keyword or str(elem.tag))
            if elem.tag.is_private or elem.keyword not in KEEP else None)
    if outside:
        names = ", ".join(sorted(set(outside)))
        found.append(f"{len(outside)} element(s) outside the de-identification profile: {names}")
    texts: set[str] = set()
    _collect_uncontrolled(ds, "", texts)
    if texts:
        found.append(f"text outside the controlled terms in: {', '.join(sorted(texts))}")
    for keyword in (*EMPTIED, *EMPTIED_IF_PRESENT):
        if str(ds.get(keyword, "") or "").strip():
            found.append(f"{keyword} is not empty")
    description = str(ds.get("SeriesDescription", "") or "")
    if description and acquisition_label(description) != description:
        found.append("SeriesDescription is free text, not a controlled word")
    agent = str(ds.get("ContrastBolusAgent", "") or "")
    if agent and agent != CONTRAST_WORD:
        found.append("ContrastBolusAgent is free text")
    if str(ds.get("BurnedInAnnotation", "")).upper() == "YES":
        found.append("BurnedInAnnotation is YES: the pixels carry text")
    return found


def _pixel_data_violations(ds: Any) -> list[str]:
    """Pixel data must be native (a compressed frame has segments of its own) and no longer
    than its frames (bytes after them could hold anything)."""
    from pydicom.pixels.utils import get_expected_length

    if str(ds.file_meta.get("TransferSyntaxUID", "")) not in NATIVE_SYNTAXES:
        return ["pixel data is compressed or deflated: only native pixel data ships (a"
                " compressed frame carries segments of its own)"]
    try:
        expected = int(get_expected_length(ds, "bytes"))
    except Exception:  # noqa: BLE001 - no geometry to check against: not proven
        return ["pixel data size cannot be checked against Rows, Columns and frames"]
    extra = len(ds.PixelData) - (expected + expected % 2)
    return [f"pixel data holds {extra} byte(s) after the last frame"] if extra > 0 else []


def _collect_uncontrolled(ds: Any, parent: str, out: set[str]) -> None:
    """Keywords of text elements, at any depth, holding values the profile does not allow."""
    for elem in ds:
        if elem.VR == "SQ":
            for item in elem.value:
                _collect_uncontrolled(item, elem.keyword or str(elem.tag), out)
        elif parent and elem.keyword in WRITTEN and not (
            parent == "DeidentificationMethodCodeSequence" and elem.keyword in DEID_CODE
        ):
            out.add(elem.keyword)  # the profile writes these at the top level only
        elif _uncontrolled(elem):
            out.add(elem.keyword)


def _uncontrolled(elem: Any) -> bool:
    """A kept text element whose value is not one the profile allows (values never echoed)."""
    keyword = elem.keyword
    if (elem.VR not in TEXT_VRS or keyword not in KEEP or keyword in EMPTIED
            or keyword in EMPTIED_IF_PRESENT):
        return False  # outside KEEP is reported already; the emptied ones are checked below
    values = [v for v in values_of(elem.value) if v.strip()]
    if keyword == "DeidentificationMethod":
        return any(v != DEID_METHOD for v in values)
    if keyword in DEID_CODE:
        return any(v != DEID_CODE[keyword] for v in values)
    if keyword in WRITTEN:
        return False  # SeriesDescription and ContrastBolusAgent: checked below
    return not all(allowed_term(keyword, v) for v in values)


@functools.lru_cache(maxsize=4)
def _name_patterns(names: tuple[str, ...]
                   ) -> tuple[list[tuple[str, re.Pattern[str]]], re.Pattern[str] | None]:
    """Each name's pattern and the one for any of them (None without names): compiled once
    per set of users, not at every export (302 users at the bench's 100,000 cases)."""
    if not names:
        return [], None
    return [(n, _name_pattern(n)) for n in names], _any_name_pattern(list(names))


def _name_pattern(name: str) -> re.Pattern[str]:
    """The name as whole words, any case. "No word character before it" is checked after its
    first letter (the same test, one character further back), so that the search still
    skips ahead to that letter: five times faster on a release's text."""
    first, *rest = name.split()
    words = [re.escape(first[0]) + r"(?<!\w(?s:.))" + re.escape(first[1:]),
             *(re.escape(w) for w in rest)]
    return re.compile(r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def _any_name_pattern(names: list[str]) -> re.Pattern[str]:
    """One pattern matching wherever any of ``names`` would (and only there): the names'
    characters as a trie, so a line is scanned once whatever the number of users, instead of
    once per user (a project of 300 people spent 2.5 s of a 100-case export here)."""
    trie: dict[str, Any] = {}
    for name in names:
        node = trie
        for i, word in enumerate(name.split()):
            for token in ([r"\s+"] if i else []) + [re.escape(c) for c in word]:
                node = node.setdefault(token, {})
        node[""] = {}  # a name ends here

    def alternatives(node: dict[str, Any]) -> str:
        chain = []
        while "" not in node and len(node) == 1:  # no choice here: one literal after another
            token, node = next(iter(node.items()))
            chain.append(token)
        branches = [token + alternatives(child) for token, child in node.items() if token]
        body = "|".join(branches)
        if "" in node:
            body = f"(?:{body})?" if branches else ""
        elif len(branches) > 1:
            body = f"(?:{body})"
        return "".join(chain) + body

    # The names' first letters as a set, "no word character before it" tested after it (as
    # in _name_pattern): the search skips ahead to those letters, 2x faster on a release.
    firsts = "".join(trie)
    branches = "|".join(f"(?<={first}){alternatives(child)}" for first, child in trie.items())
    return re.compile(f"[{firsts}]" + r"(?<!\w(?s:.))(?:" + branches + r")(?!\w)",
                      re.IGNORECASE)


def name_findings(texts: Mapping[str, bytes], names: Iterable[str]) -> list[str]:
    """Every line of the release's text files that names a project user."""
    patterns, anyone = _name_patterns(tuple(sorted({n for n in names if n.strip()})))
    if anyone is None:
        return []
    found: list[str] = []
    named: dict[str, list[str]] = {}  # line -> the names in it: JSON repeats most lines
    for path in sorted(texts):
        text = texts[path].decode("utf-8", errors="replace")
        if not anyone.search(text):  # no line can match where the whole text does not
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            hits = named.get(line)
            if hits is None:  # which names, asked only of a line that names somebody
                hits = named[line] = [n for n, pattern in patterns if pattern.search(line)] \
                    if anyone.search(line) else []
            found += [f"{path}: line {number} names user {name!r}" for name in hits]
    return found


def check(findings: list[str]) -> None:
    """Raise :class:`PrivacyError` when there is any finding."""
    if findings:
        raise PrivacyError(findings)
