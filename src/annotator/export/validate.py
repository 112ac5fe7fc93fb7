"""``annotator validate DIR``: check a release folder against the contract and its manifest.

Each problem is one readable line naming the file (and case, field or path). Checked: the
JSON types of every case (a stage is an integer or null, nothing coerced), one step per
exam and steps naming existing exams, images present where the cases say and with the
checksums images.csv and MANIFEST.sha256 give, paths in the release layout, and the counts
in the card and in croissant.json equal to what release.json holds, and the history chain
head the two state equal to each other (:func:`release_history_head` reads it for
``validate --project``, which checks it against the project's history).

A release holds regular files only: a symlink anywhere is a problem, and every read goes
through :func:`_read`, which refuses a path that leaves the folder, a symlink, a folder or a
device in place of a file, and a file too large to be part of a release. Malformed files are
problems, never tracebacks.
"""

from __future__ import annotations

import csv
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Any

from annotator.export import layout as L
from annotator.export.card import card_counts, card_history_head
from annotator.export.counts import JSON_COUNTS, image_paths, json_counts
from annotator.export.croissant import croissant_counts, croissant_history_head
from annotator.export.manifest import read_manifest, release_files
from annotator.export.model import case_problems
from annotator.inputfiles import loads_bounded, unstorable_text

MAX_FILE_BYTES = 2 * 2**30


class _Unreadable(Exception):
    """Why a release file cannot be read; ``missing`` when it is simply not there."""

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing


def _read(folder: Path, rel: str) -> bytes:
    """The bytes of the regular file ``rel`` inside ``folder``; raises :class:`_Unreadable`."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or ".." in pure.parts or "\x00" in rel:
        raise _Unreadable("is not inside the release (an absolute path or one with ..)")
    path = folder
    for part in pure.parts:
        path = path / part
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            raise _Unreadable("missing", missing=True) from None
        except OSError as exc:
            raise _Unreadable(f"unreadable ({exc.strerror or exc})") from None
        if stat.S_ISLNK(info.st_mode):
            raise _Unreadable("is a symlink; a release holds regular files only")
    if not stat.S_ISREG(info.st_mode):
        raise _Unreadable("is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise _Unreadable(f"is {info.st_size:,} bytes, too large for a release file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _Unreadable(f"unreadable ({exc.strerror or exc})") from None


def _exists(folder: Path, rel: str) -> bool:
    try:
        _read(folder, rel)
    except _Unreadable:
        return False
    return True


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_ABSENT: Any = object()  # what _load_json returns for a file it could not read (a problem)


def _load_json(folder: Path, rel: str, problems: list[str]) -> Any:
    """The file's JSON value (``null`` is None), or :data:`_ABSENT` with the problem noted."""
    try:
        return loads_bounded(_read(folder, rel).decode("utf-8"), parse_constant=_no_constants)
    except _Unreadable as exc:
        problems.append(f"{rel}: {exc}")
    except ValueError as exc:  # UnicodeDecodeError and too deep nesting are ValueErrors
        problems.append(f"{rel}: not valid JSON ({exc or type(exc).__name__})")
    return _ABSENT


def _symlinks(folder: Path) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            if os.path.islink(os.path.join(root, name)):
                rel = Path(root, name).relative_to(folder).as_posix()
                found.append(f"{rel}: is a symlink; a release holds regular files only")
    return sorted(found)


def validate_release(folder: Path) -> list[str]:
    """Every problem of the release at ``folder`` (empty list: valid)."""
    if not folder.is_dir():
        return [f"{folder}: not a folder"]
    problems: list[str] = _symlinks(folder)
    cases = _load_json(folder, L.RELEASE_JSON, problems)
    if cases is not _ABSENT and not isinstance(cases, list):
        problems.append(f"{L.RELEASE_JSON}: the top level must be an array of cases")
        cases = None
    bad_text = unstorable_text(cases)
    if bad_text:  # checked no further: every later check would trip over it
        problems.append(f"{L.RELEASE_JSON}: {bad_text}")
        cases = None
    cases = cases if isinstance(cases, list) else []
    problems += _cases(folder, cases)
    problems += _images_csv(folder, cases)
    problems += _manifest(folder)
    problems += _counts(folder, cases)
    problems += _history_heads(folder)
    return problems


def _stated_heads(folder: Path) -> dict[str, str | None]:
    """The history chain head stated by the card and by croissant.json (None: not stated)."""
    heads: dict[str, str | None] = {}
    try:
        heads[L.CARD_MD] = card_history_head(_read(folder, L.CARD_MD).decode("utf-8"))
    except (_Unreadable, UnicodeDecodeError):
        pass  # reported by the counts check
    croissant = _load_json(folder, L.CROISSANT_JSON, [])
    if croissant is not None:
        heads[L.CROISSANT_JSON] = croissant_history_head(croissant)
    return heads


def _history_heads(folder: Path) -> list[str]:
    stated = _stated_heads(folder)
    if len(set(stated.values())) > 1:
        return [f"{L.CARD_MD} and {L.CROISSANT_JSON} state different history chain heads"]
    return []


def release_history_head(folder: Path) -> str | None:
    """The history chain head the release published, when the card and croissant.json agree."""
    heads = set(_stated_heads(folder).values())
    return heads.pop() if len(heads) == 1 else None


def _cases(folder: Path, cases: list[Any]) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    for index, case in enumerate(cases):
        label = f"{L.RELEASE_JSON}: case {index}"
        if isinstance(case, dict) and isinstance(case.get("case_id"), str):
            label = f"{L.RELEASE_JSON}: case {case['case_id']}"
            if case["case_id"] in seen:
                problems.append(f"{label}: case_id appears twice")
            seen.add(case["case_id"])
        problems += [f"{label}: {p}" for p in case_problems(case)]
        if not isinstance(case, dict):
            continue
        prefix = f"{L.IMAGES_DIR}/{L.safe_case_dir(str(case.get('case_id')))}/"
        for path in image_paths(case):
            pure = PurePosixPath(path)
            if pure.is_absolute() or ".." in pure.parts or not path.startswith(prefix):
                problems.append(f"{label}: image path {path!r} is not under {prefix}")
            elif not _exists(folder, path):
                problems.append(f"{label}: image {path} is missing")
    return problems


def _images_csv(folder: Path, cases: list[Any]) -> list[str]:
    try:
        rows = L.read_csv(_read(folder, L.IMAGES_CSV))
    except _Unreadable as exc:
        return [f"{L.IMAGES_CSV}: {exc}"]
    except (ValueError, csv.Error) as exc:  # not UTF-8, a NUL byte
        return [f"{L.IMAGES_CSV}: unreadable ({exc})"]
    problems: list[str] = []
    listed: set[str] = set()
    for number, row in enumerate(rows, start=2):
        path = row.get("path") or ""
        listed.add(path)
        try:
            data = _read(folder, path)
        except _Unreadable as exc:
            why = "is missing" if exc.missing or not path else str(exc)
            problems.append(f"{L.IMAGES_CSV}: line {number}: image {path!r} {why}")
            continue
        if L.sha256_hex(data) != row.get("sha256"):
            problems.append(f"{L.IMAGES_CSV}: line {number}: {path} does not match its SHA-256")
    cited = {p for c in cases if isinstance(c, dict) for p in image_paths(c)}
    problems += [f"{L.IMAGES_CSV}: no row for {p}, which release.json cites"
                 for p in sorted(cited - listed)]
    problems += [f"{L.IMAGES_CSV}: {p} is listed but no case cites it"
                 for p in sorted(listed - cited)]
    return problems


def _manifest(folder: Path) -> list[str]:
    try:
        checksums, problems = read_manifest(_read(folder, L.MANIFEST))
    except _Unreadable as exc:
        return [f"{L.MANIFEST}: {exc}"]
    files = [f for f in release_files(folder) if f != L.MANIFEST]
    for rel in files:
        if rel not in checksums:
            problems.append(f"{L.MANIFEST}: {rel} is not listed")
            continue
        try:
            data = _read(folder, rel)
        except _Unreadable as exc:
            problems.append(f"{L.MANIFEST}: {rel} {exc}")
            continue
        if L.sha256_hex(data) != checksums[rel]:
            problems.append(f"{L.MANIFEST}: {rel} does not match its SHA-256")
    problems += [f"{L.MANIFEST}: {rel} is listed but missing"
                 for rel in sorted(set(checksums) - set(files))]
    return problems


def _counts(folder: Path, cases: list[Any]) -> list[str]:
    expected = json_counts(cases)
    problems: list[str] = []
    try:
        card = card_counts(_read(folder, L.CARD_MD).decode("utf-8"))
    except _Unreadable as exc:
        problems.append(f"{L.CARD_MD}: {exc}")
        card = None
    except UnicodeDecodeError as exc:
        problems.append(f"{L.CARD_MD}: not UTF-8 text ({exc})")
        card = None
    croissant = _load_json(folder, L.CROISSANT_JSON, problems)
    stated = [(L.CARD_MD, card)]
    if croissant is not _ABSENT and not isinstance(croissant, dict):
        problems.append(f"{L.CROISSANT_JSON}: not a JSON object")
    elif croissant is not _ABSENT and unstorable_text(croissant):
        problems.append(f"{L.CROISSANT_JSON}: {unstorable_text(croissant)}")
    elif croissant is not _ABSENT:
        stated.append((L.CROISSANT_JSON, croissant_counts(croissant)))
        problems += _croissant_files(folder, croissant)
    for name, counts in stated:
        if counts is None:
            continue
        for key, label in JSON_COUNTS.items():
            if key not in counts:
                problems.append(f"{name}: no count for {label!r}")
            elif counts[key] != expected[key]:
                problems.append(f"{name}: {label} is {counts[key]}, release.json has"
                                f" {expected[key]}")
    return problems


def _croissant_files(folder: Path, doc: Any) -> list[str]:
    problems: list[str] = []
    distribution = doc.get("distribution") if isinstance(doc, dict) else None
    for entry in distribution if isinstance(distribution, list) else []:
        if not isinstance(entry, dict) or entry.get("@type") != "cr:FileObject":
            continue
        rel = str(entry.get("contentUrl"))
        try:
            data = _read(folder, rel)
        except _Unreadable as exc:
            why = "is missing" if exc.missing else str(exc)
            problems.append(f"{L.CROISSANT_JSON}: distribution file {rel} {why}")
            continue
        if L.sha256_hex(data) != entry.get("sha256"):
            problems.append(f"{L.CROISSANT_JSON}: {rel} does not match its SHA-256")
    return problems
