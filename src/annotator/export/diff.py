"""What changed since a previous release (``export --previous DIR``), as diff.json.

Cases are matched by ``case_id`` and exams by ``figure``. For each changed case the diff
lists the top-level keys that differ and, per exam, the scored fields that changed (stage,
importance, metadata, caption) with their old and new values. Images are compared by
release path and SHA-256.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotator.export.errors import ExportError
from annotator.export.layout import CROISSANT_JSON, IMAGES_CSV, RELEASE_JSON, read_csv


def read_previous(folder: Path) -> tuple[list[dict[str, Any]], dict[str, str], str | None]:
    """A previous release's cases, image checksums (path -> SHA-256) and version."""
    path = folder / RELEASE_JSON
    try:
        cases = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExportError(f"--previous {folder}: no {RELEASE_JSON} there") from None
    except (OSError, ValueError) as exc:
        raise ExportError(f"--previous {folder}: cannot read {RELEASE_JSON}: {exc}") from None
    if not isinstance(cases, list):
        raise ExportError(f"--previous {folder}: {RELEASE_JSON} is not an array of cases")
    images: dict[str, str] = {}
    if (folder / IMAGES_CSV).exists():
        for row in read_csv((folder / IMAGES_CSV).read_bytes()):
            images[row.get("path", "")] = row.get("sha256", "")
    version = None
    try:
        version = json.loads((folder / CROISSANT_JSON).read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        pass
    return [c for c in cases if isinstance(c, dict)], images, version


def _by_figure(case: dict[str, Any]) -> dict[str, dict[str, Any]]:
    exams = {str(e.get("figure")): dict(e) for e in case.get("imaging_examinations") or []
             if isinstance(e, dict)}
    for step in case.get("diagnostic_steps") or []:
        if isinstance(step, dict) and str(step.get("source")) in exams:
            exams[str(step.get("source"))]["essential"] = step.get("essential")
    return exams


def _exam_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[Any]]:
    changes: dict[str, list[Any]] = {}
    for key in ("preferred_order", "essential", "image_caption"):
        if old.get(key) != new.get(key):
            changes[key] = [old.get(key), new.get(key)]
    old_meta, new_meta = old.get("meta_info") or {}, new.get("meta_info") or {}
    for key in sorted(set(old_meta) | set(new_meta)):
        if old_meta.get(key) != new_meta.get(key):
            changes[f"meta_info.{key}"] = [old_meta.get(key), new_meta.get(key)]
    return changes


def _case_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any] | None:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    if not keys:
        return None
    old_exams, new_exams = _by_figure(old), _by_figure(new)
    exams: list[dict[str, Any]] = []
    for figure in sorted(set(old_exams) | set(new_exams)):
        if figure not in old_exams or figure not in new_exams:
            exams.append({"figure": figure,
                          "change": "added" if figure in new_exams else "removed"})
            continue
        changes = _exam_changes(old_exams[figure], new_exams[figure])
        if changes:
            exams.append({"figure": figure, "changes": changes})
    return {"case_id": str(new.get("case_id")), "keys": keys, "exams": exams}


def release_diff(
    previous: Path, cases: list[dict[str, Any]], images: dict[str, str], version: str
) -> dict[str, Any]:
    """The diff of this release (``cases``, image path -> SHA-256) against ``previous``."""
    old_cases, old_images, old_version = read_previous(previous)
    old = {str(c.get("case_id")): c for c in old_cases}
    new = {str(c.get("case_id")): c for c in cases}
    changed = [d for cid in sorted(set(old) & set(new))
               if (d := _case_changes(old[cid], new[cid])) is not None]
    image_changes = [
        {"path": p, "change": "added" if p not in old_images
         else "removed" if p not in images else "changed"}
        for p in sorted(set(old_images) | set(images))
        if old_images.get(p) != images.get(p)
    ]
    return {
        "previous_version": old_version,
        "version": version,
        "cases_added": sorted(set(new) - set(old)),
        "cases_removed": sorted(set(old) - set(new)),
        "cases_changed": changed,
        "images_changed": image_changes,
    }
