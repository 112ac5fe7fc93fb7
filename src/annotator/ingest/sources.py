"""Find draft case files and read the case objects out of them.

A source is a JSON file (one case object or an array of them) or a folder (every ``*.json``
below it, in sorted order). Problems become :class:`Rejection` values, never exceptions:
one bad file must not stop the others. Only regular files are read (a FIFO or a device such
as ``/dev/zero`` is refused without blocking), with a size limit; a folder's symlinks that
lead outside it, or in a loop, are reported and skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.ingest.results import Rejection
from annotator.inputfiles import (
    NotReadable,
    TooDeep,
    loads_bounded,
    read_regular,
    unstorable_text,
)


@dataclass(frozen=True)
class CaseObject:
    """One JSON value read from a case file; ``index`` is its position in an array file."""

    file: Path
    index: int | None
    value: object


class _DuplicateKey(ValueError):
    pass


MAX_CASE_FILE_BYTES = 64 * 2**20


def find_case_files(paths: Sequence[Path]) -> tuple[list[Path], list[Rejection]]:
    """Expand folders to their ``*.json`` files (sorted, hidden entries skipped), once each."""
    files: list[Path] = []
    rejected: list[Rejection] = []
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        try:
            if path.is_dir():
                found = sorted(_json_files(path, rejected),
                               key=lambda p: p.relative_to(path).as_posix())
                if not found:
                    rejected.append(Rejection(path, None, None, "the folder holds no .json file"))
            elif path.exists():
                found = [path]
            else:
                rejected.append(Rejection(path, None, None, "no such file or folder"))
                continue
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            rejected.append(Rejection(path, None, None, f"cannot read: {_reason(exc)}"))
            continue
        for file in found:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files, rejected


def _json_files(root: Path, rejected: list[Rejection]) -> Iterator[Path]:
    """Every visible ``*.json`` under ``root``; symlinks out of ``root`` or in loops reported.

    Walks with os.walk (symlinked folders not followed, so a loop cannot recurse); a
    symlinked file is read only when it resolves inside ``root``.
    """
    real_root = root.resolve()
    for folder, dirs, files in os.walk(root, onerror=lambda exc: rejected.append(
            Rejection(Path(exc.filename or root), None, None, f"cannot read: {_reason(exc)}"))):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or not name.endswith(".json"):
                continue
            file = Path(folder) / name
            if file.is_symlink():
                try:
                    target = file.resolve(strict=True)
                except (OSError, RuntimeError) as exc:  # a loop or a dangling link
                    rejected.append(Rejection(file, None, None,
                                              f"cannot read: broken or looping symlink ({exc})"))
                    continue
                if not target.is_relative_to(real_root):
                    rejected.append(Rejection(file, None, None, "a symlink that leads outside"
                                                                " the imported folder"))
                    continue
            yield file


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return os_reason(exc)
    return str(exc) or type(exc).__name__


def read_case_objects(file: Path) -> tuple[list[CaseObject], Rejection | None]:
    """Parse one case file into its case objects, or a rejection for the whole file."""
    try:
        raw = read_regular(file, MAX_CASE_FILE_BYTES)
    except (OSError, ValueError) as exc:
        return [], Rejection(file, None, None, f"cannot read: {_reason(exc)}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [], Rejection(file, None, None,
                             f"not UTF-8 text (byte offset {exc.start}); save the file as UTF-8")
    try:
        value = loads_bounded(text, object_pairs_hook=_unique_keys, parse_constant=_no_constants,
                           parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        return [], Rejection(file, None, None, f"malformed JSON at line {exc.lineno}, column"
                                               f" {exc.colno}: {exc.msg}")
    except _DuplicateKey as exc:
        return [], Rejection(file, None, None, f"malformed JSON: {exc}")
    except TooDeep as exc:
        return [], Rejection(file, None, None, f"not a case file: JSON {exc}")
    except ValueError as exc:
        return [], Rejection(file, None, None, f"malformed JSON: {exc or type(exc).__name__}")
    bad_text = unstorable_text(value)
    if bad_text:
        return [], Rejection(file, None, None, bad_text)
    if isinstance(value, list):
        if not value:
            return [], Rejection(file, None, None, "the file holds an empty array: no case")
        return [CaseObject(file, i, item) for i, item in enumerate(value)], None
    if isinstance(value, dict):
        return [CaseObject(file, None, value)], None
    return [], Rejection(file, None, None, f"a case file holds a case object or an array of"
                                           f" them, not {json_kind(value)}")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json keeps the last of two equal keys silently; in a draft that loses text unnoticed.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text} is too large")
    return value


def json_kind(value: object) -> str:
    """``"a string"``, ``"an array"``, ... for messages about a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a number"


def os_reason(exc: OSError) -> str:
    """The readable part of an OSError ("Permission denied")."""
    if isinstance(exc, NotReadable):
        return str(exc.strerror)
    return exc.strerror or str(exc)

