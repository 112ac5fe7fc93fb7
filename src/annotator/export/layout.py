"""The release folder's layout, file names, and the byte formats every writer shares.

Everything here is deterministic: the same input gives the same bytes on any machine and
either database back end (JSON without NaN, CSV with ``\\n`` line ends, names sanitised the
same way every time).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

RELEASE_JSON = "release.json"
IMAGES_CSV = "images.csv"
ATTRIBUTION_TSV = "ATTRIBUTION.tsv"
CROISSANT_JSON = "croissant.json"
CARD_MD = "BENCHMARK_CARD.md"
EXCLUDED_CSV = "excluded.csv"
DIFF_JSON = "diff.json"
MANIFEST = "MANIFEST.sha256"
AGREEMENT_JSON = "agreement/agreement.json"
AGREEMENT_HTML = "agreement/agreement.html"
IMAGES_DIR = "images"
DICOM_DIR = "dicom"

IMAGES_CSV_COLUMNS = (
    "image_id", "case_id", "figure", "path", "name", "caption", "source_url", "source_case_url",
    "sha256", "media_type", "rendered_from", "frame", "frames", "window_center", "window_width",
    "window_source", "invert", "render_policy", "dicom_path",
)
ATTRIBUTION_COLUMNS = ("path", "case_id", "source_url", "author", "license")
EXCLUDED_COLUMNS = ("case_id", "reason_code", "reason")

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _clean_name(text: str) -> str:
    cleaned = _UNSAFE.sub("_", text).strip("._") or "x"
    return cleaned[:100]


def safe_case_dir(case_id: str) -> str:
    """A folder name for a case id; an id that had to change gets a short hash (no clashes)."""
    cleaned = _clean_name(case_id)
    if cleaned != case_id:
        cleaned = f"{cleaned}-{sha256_hex(case_id.encode('utf-8'))[:8]}"
    return cleaned


def release_file_names(images: Sequence[tuple[str, Sequence[str]]]) -> dict[str, str]:
    """Draft path -> derived file name inside the case folder: ``<figure>-<n>.png``.

    ``images`` are (draft path, figures citing it) in the case's order; ``n`` counts the
    images of that figure from 1, and an image no figure cites is ``image-<n>.png``. The
    uploaded file's name never reaches the release: it may carry a patient's name or number.
    """
    names: dict[str, str] = {}
    counts: dict[str, int] = {}
    taken: set[str] = set()
    for path, figures in images:
        if path in names:
            continue
        stem = _clean_name(figures[0]).lower() if figures else "image"
        counts[stem] = counts.get(stem, 0) + 1
        candidate = f"{stem}-{counts[stem]}.png"
        while candidate in taken:  # "Figure 1" and "figure_1" clean to the same stem
            counts[stem] += 1
            candidate = f"{stem}-{counts[stem]}.png"
        taken.add(candidate)
        names[path] = candidate
    return names


def dump_json(data: Any) -> bytes:
    """The release's JSON bytes: keys in the order given, one-space indent, UTF-8, no NaN."""
    text = json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_bytes(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> bytes:
    """RFC 4180 CSV with a header row and ``\\n`` line ends."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return buffer.getvalue().encode("utf-8")


def tsv_bytes(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> bytes:
    """Tab-separated values; tabs and line breaks inside a value become spaces."""
    def flat(value: Any) -> str:
        return re.sub(r"[\t\r\n]+", " ", _cell(value))

    lines = ["\t".join(columns)]
    lines += ["\t".join(flat(row.get(c)) for c in columns) for row in rows]
    return ("\n".join(lines) + "\n").encode("utf-8")


def read_csv(data: bytes) -> list[dict[str, str]]:
    """Rows of a CSV file written by :func:`csv_bytes`."""
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
