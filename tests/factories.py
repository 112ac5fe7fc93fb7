"""Builders of real draft-case files for tests (PNG images written with Pillow)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from PIL import Image

BASE_CASE: dict[str, Any] = {
    "case_id": "T1",
    "case_title": "Test: longitudinally extensive transverse myelitis",
    "section": "Neuroradiology",
    "area_of_interest": "Spine",
    "clinical_history": "A 34-year-old man with ascending numbness and leg weakness over 5 days.",
    "original_clinical_history": "Longer history text kept exactly as imported.",
    "final_diagnosis": "Longitudinally extensive transverse myelitis",
    "difficulty": "hard",
    "rarity": "rare",
    "source_url": "https://example.org/case/T1",
    "item": {
        "stem": "Based on the imaging figures provided, what is the most likely diagnosis?",
        "mcq": {
            "options": ["Longitudinally extensive transverse myelitis", "Spinal cord infarction"]
        },
        "open_ended": {"reference_answer": "Longitudinally extensive transverse myelitis"},
    },
    "rubric_0_to_3": {
        "Diagnosis": {
            "reference_answer": "Longitudinally extensive transverse myelitis",
            "3": 'LETM, e.g. "longitudinally extensive myelitis".',
            "2": "Transverse myelitis without the extent.",
            "1": 'Myelopathy such as "NMOSD".',
            "0": "Unrelated.",
        },
        "Localisation": {
            "reference_answer": {
                "Laterality": "Midline",
                "Organ/Region": "Spinal cord",
                "Specific Substructure/Segment": "Cervical cord C2 to C6",
            },
            "3": "Cervical cord C2-C6.",
            "2": "Spinal cord.",
            "1": "Spine.",
            "0": "Wrong.",
        },
    },
    "images": [
        {
            "name": "Figure 1a",
            "caption": "T2 sagittal",
            "path": "img/f1.png",
            "source_url": "https://example.org/f1",
            "author": "Test",
            "license": "CC0-1.0",
        },
        {
            "name": "Figure 2a",
            "caption": "T1 post",
            "path": "img/f2.png",
            "source_url": "https://example.org/f2",
            "author": "Test",
            "license": "CC0-1.0",
        },
        {
            "name": "Figure 3a",
            "caption": "FLAIR",
            "path": "img/f3.png",
            "source_url": "https://example.org/f3",
            "author": "Test",
            "license": "CC0-1.0",
        },
    ],
    "diagnostic_steps": [
        {"source": "Figure 1", "essential": "essential", "step": "Review Figure 1", "reason": "r1"},
        {"source": "Figure 2", "essential": "essential", "step": "Review Figure 2", "reason": "r2"},
        {"source": "Figure 3", "essential": "optional", "step": "Review Figure 3", "reason": "r3"},
    ],
    "imaging_examinations": [
        {
            "figure": "Figure 1",
            "preferred_order": 1,
            "image_caption": "T2: cord hyperintensity.",
            "meta_info": {
                "modality": "MRI",
                "acquisition": "T2",
                "view": "sagittal",
                "imaged_region": "cervical spine",
                "contrast": "non-contrast",
                "time_past": None,
            },
            "image_paths": ["img/f1.png"],
            "key_findings": ["cord hyperintensity"],
        },
        {
            "figure": "Figure 2",
            "preferred_order": 2,
            "image_caption": "Post-contrast T1.",
            "meta_info": {
                "modality": "MRI",
                "acquisition": "post-contrast T1",
                "view": "sagittal",
                "imaged_region": "cervical spine",
                "contrast": "post-contrast",
                "time_past": 6,
            },
            "image_paths": ["img/f2.png"],
            "key_findings": ["patchy enhancement"],
        },
        {
            "figure": "Figure 3",
            "preferred_order": 2,
            "image_caption": "Brain FLAIR.",
            "meta_info": {
                "modality": "MRI",
                "acquisition": "FLAIR",
                "view": "axial",
                "imaged_region": "brain",
                "contrast": "non-contrast",
                "time_past": -3,
            },
            "image_paths": ["img/f3.png"],
            "key_findings": "no lesions",
        },
    ],
    "image_detail": {"Figure 1": "C2-C6 central T2 signal."},
}


def make_case(case_id: str = "T1", **changes: Any) -> dict[str, Any]:
    case = copy.deepcopy(BASE_CASE)
    case["case_id"] = case_id
    case.update(changes)
    return case


def write_images(folder: Path, shade: int = 0) -> None:
    (folder / "img").mkdir(parents=True, exist_ok=True)
    for i in (1, 2, 3):
        image = Image.new("L", (32, 24), color=(40 * i + shade) % 256)
        image.save(folder / "img" / f"f{i}.png")


def write_case_file(
    folder: Path,
    cases: dict[str, Any] | list[dict[str, Any]],
    name: str = "cases.json",
    shade: int = 0,
) -> Path:
    """Write a case file and the images its cases use; returns the JSON path."""
    folder.mkdir(parents=True, exist_ok=True)
    write_images(folder, shade)
    path = folder / name
    path.write_text(json.dumps(cases, indent=1), encoding="utf-8")
    return path
