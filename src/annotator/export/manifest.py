"""MANIFEST.sha256: the SHA-256 of every file of a release, in ``sha256sum -c`` format."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from annotator.export.layout import MANIFEST

_LINE = re.compile(r"^([0-9a-f]{64})  (\S.*)$")


def manifest_bytes(checksums: Mapping[str, str]) -> bytes:
    """One ``<sha256>  <path>`` line per file, sorted by path (the manifest itself excluded)."""
    lines = [f"{checksums[p]}  {p}\n" for p in sorted(checksums) if p != MANIFEST]
    return "".join(lines).encode("utf-8")


def read_manifest(data: bytes) -> tuple[dict[str, str], list[str]]:
    """Path -> SHA-256 from manifest bytes, and a problem line per malformed line."""
    checksums: dict[str, str] = {}
    problems: list[str] = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        match = _LINE.match(line)
        if match is None:
            problems.append(f"{MANIFEST}: line {number} is not '<sha256>  <path>'")
        else:
            checksums[match.group(2)] = match.group(1)
    return checksums, problems


def release_files(folder: Path) -> list[str]:
    """Every file under ``folder`` as a POSIX path relative to it, sorted."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
