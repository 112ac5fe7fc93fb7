"""``annotator validate DIR``: check a release folder against the contract and its manifest.

Each problem is one readable line naming the file (and case, field or path). Checked: the
JSON types of every case (a stage is an integer or null, nothing coerced), one step per
exam and steps naming existing exams, images present where the cases say and with the
checksums images.csv and MANIFEST.sha256 give, paths in the release layout, and the counts
in the card and in croissant.json equal to what release.json holds.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from annotator.export import layout as L
from annotator.export.card import card_counts
from annotator.export.counts import JSON_COUNTS, image_paths, json_counts
from annotator.export.croissant import croissant_counts
from annotator.export.manifest import read_manifest, release_files
from annotator.export.model import case_problems


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _load_json(folder: Path, rel: str, problems: list[str]) -> Any:
    try:
        return json.loads((folder / rel).read_text(encoding="utf-8"),
                          parse_constant=_no_constants)
    except FileNotFoundError:
        problems.append(f"{rel}: missing")
    except (OSError, ValueError) as exc:
        problems.append(f"{rel}: not valid JSON ({exc})")
    return None


def validate_release(folder: Path) -> list[str]:
    """Every problem of the release at ``folder`` (empty list: valid)."""
    if not folder.is_dir():
        return [f"{folder}: not a folder"]
    problems: list[str] = []
    cases = _load_json(folder, L.RELEASE_JSON, problems)
    if cases is not None and not isinstance(cases, list):
        problems.append(f"{L.RELEASE_JSON}: the top level must be an array of cases")
        cases = None
    cases = cases or []
    problems += _cases(folder, cases)
    problems += _images_csv(folder, cases)
    problems += _manifest(folder)
    problems += _counts(folder, cases)
    return problems


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
            elif not (folder / path).is_file():
                problems.append(f"{label}: image {path} is missing")
    return problems


def _images_csv(folder: Path, cases: list[Any]) -> list[str]:
    try:
        rows = L.read_csv((folder / L.IMAGES_CSV).read_bytes())
    except FileNotFoundError:
        return [f"{L.IMAGES_CSV}: missing"]
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{L.IMAGES_CSV}: unreadable ({exc})"]
    problems: list[str] = []
    listed: set[str] = set()
    for number, row in enumerate(rows, start=2):
        path = row.get("path") or ""
        listed.add(path)
        target = folder / path
        if not path or not target.is_file():
            problems.append(f"{L.IMAGES_CSV}: line {number}: image {path!r} is missing")
        elif L.sha256_hex(target.read_bytes()) != row.get("sha256"):
            problems.append(f"{L.IMAGES_CSV}: line {number}: {path} does not match its SHA-256")
    cited = {p for c in cases if isinstance(c, dict) for p in image_paths(c)}
    problems += [f"{L.IMAGES_CSV}: no row for {p}, which release.json cites"
                 for p in sorted(cited - listed)]
    problems += [f"{L.IMAGES_CSV}: {p} is listed but no case cites it"
                 for p in sorted(listed - cited)]
    return problems


def _manifest(folder: Path) -> list[str]:
    try:
        checksums, problems = read_manifest((folder / L.MANIFEST).read_bytes())
    except FileNotFoundError:
        return [f"{L.MANIFEST}: missing"]
    files = [f for f in release_files(folder) if f != L.MANIFEST]
    for rel in files:
        if rel not in checksums:
            problems.append(f"{L.MANIFEST}: {rel} is not listed")
        elif L.sha256_hex((folder / rel).read_bytes()) != checksums[rel]:
            problems.append(f"{L.MANIFEST}: {rel} does not match its SHA-256")
    problems += [f"{L.MANIFEST}: {rel} is listed but missing"
                 for rel in sorted(set(checksums) - set(files))]
    return problems


def _counts(folder: Path, cases: list[Any]) -> list[str]:
    expected = json_counts(cases)
    problems: list[str] = []
    try:
        card = card_counts((folder / L.CARD_MD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{L.CARD_MD}: missing")
        card = None
    croissant = _load_json(folder, L.CROISSANT_JSON, problems)
    stated = [(L.CARD_MD, card)]
    if croissant is not None:
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
        target = folder / rel
        if not target.is_file():
            problems.append(f"{L.CROISSANT_JSON}: distribution file {rel} is missing")
        elif L.sha256_hex(target.read_bytes()) != entry.get("sha256"):
            problems.append(f"{L.CROISSANT_JSON}: {rel} does not match its SHA-256")
    return problems
