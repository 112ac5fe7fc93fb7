"""Bundles name images neutrally: an uploaded file name never reaches an annotator's laptop.

Draft image files are often named after the patient or the record number
(``Doe_Jane_4711.dcm``). The curator's project keeps those names (they are the draft's keys),
and the release derives its own. A bundle replaces each with ``images/<n><suffix>`` wherever
the revision holds it: the exams' ``image_paths``, ``images[].path``, the image records, and
the text of stored problems and warnings. The revision keeps its content hash: packages send
labels and that hash back, never paths, so the round trip is unchanged.
"""

from __future__ import annotations

from typing import Any

from annotator.domain.json_tree import map_leaves
from annotator.imaging.probe import DICOM, JPEG, PNG
from annotator.sync.formats import BundleImage, RevisionRecord

_SUFFIX = {DICOM: ".dcm", PNG: ".png", JPEG: ".jpg"}


def neutral_names(images: list[BundleImage]) -> dict[str, str]:
    """Draft path -> ``images/<n><suffix>``, numbered in the records' order from 1."""
    return {
        img.draft_path: f"images/{n}{_SUFFIX.get(img.media_type, '')}"
        for n, img in enumerate(images, start=1)
    }


def neutralise(revision: RevisionRecord, images: list[BundleImage]
               ) -> tuple[RevisionRecord, list[BundleImage]]:
    """The revision and image records with every draft path replaced by its neutral name."""
    names = neutral_names(images)
    # Longest first, so a path that is a prefix of another never cuts into it.
    order = sorted(names, key=len, reverse=True)

    def text(value: str) -> str:
        if value in names:
            return names[value]
        for path in order:
            value = value.replace(path, names[path])
        return value

    def walk(value: Any) -> Any:
        return map_leaves(value, lambda v: text(v) if isinstance(v, str) else v)

    clean = revision.model_copy(update={
        "content": walk(revision.content),
        "original_values": walk(revision.original_values),
        "problems": walk(revision.problems),
        "warnings": walk(revision.warnings),
    })
    records = [img.model_copy(update={"draft_path": names[img.draft_path],
                                      "removed": walk(img.removed)}) for img in images]
    return clean, records
