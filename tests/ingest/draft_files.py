"""Builders for draft case files: real PNG/JPEG written with Pillow, pydicom's bundled DICOM."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import numpy as np


def png_bytes(seed: int = 0, *, text: dict[str, str] | None = None, with_time: bool = False,
              size: tuple[int, int] = (12, 8)) -> bytes:
    """A small grey PNG, optionally carrying tEXt chunks and a tIME chunk."""
    from PIL import Image, PngImagePlugin

    rng = np.random.default_rng(seed)
    img = Image.fromarray(rng.integers(0, 255, (size[1], size[0]), dtype=np.uint8), "L")
    info = PngImagePlugin.PngInfo()
    for key, value in (text or {}).items():
        info.add_text(key, value)
    if with_time:
        info.add(b"tIME", bytes([0x07, 0xE8, 1, 2, 3, 4, 5]))
    buffer = io.BytesIO()
    img.save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


def jpeg_bytes(*, exif: dict[int, Any] | None = None, comment: bytes | None = None,
               icc: bytes | None = None, progressive: bool = False) -> bytes:
    """A small colour JPEG, optionally with EXIF tags, a COM segment and an ICC profile."""
    from PIL import Image

    rng = np.random.default_rng(1)
    img = Image.fromarray(rng.integers(0, 255, (16, 24, 3), dtype=np.uint8), "RGB")
    options: dict[str, Any] = {"quality": 90, "progressive": progressive}
    if exif:
        tags = Image.Exif()
        for tag, value in exif.items():
            tags[tag] = value
        options["exif"] = tags.tobytes()
    if comment is not None:
        options["comment"] = comment
    if icc is not None:
        options["icc_profile"] = icc
    buffer = io.BytesIO()
    img.save(buffer, "JPEG", **options)
    return buffer.getvalue()


def bundled_dicom(name: str) -> bytes:
    """Bytes of one of pydicom's bundled test files (never downloads)."""
    from pydicom.data import get_testdata_file

    found = get_testdata_file(name, download=False)
    assert found is not None, f"pydicom no longer ships {name}"
    return Path(str(found)).read_bytes()


def dicom_with_patient(name: str = "Doe^Jane") -> bytes:
    """CT_small.dcm carrying a patient name, birth date and ID, as bytes."""
    import pydicom

    ds = pydicom.dcmread(io.BytesIO(bundled_dicom("CT_small.dcm")))
    ds.PatientName = name
    ds.PatientBirthDate = "19610315"
    ds.PatientID = "MRN-123456"
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


BASE_CASE: dict[str, Any] = {
    "case_id": "100",
    "case_title": "Test: left MCA infarct",
    "section": "Neuroradiology",
    "area_of_interest": "Brain",
    "clinical_history": "A 70-year-old woman with right-sided weakness.",
    "final_diagnosis": "Acute ischaemic infarct",
    "difficulty": "normal",
    "rarity": "common",
    "source_url": "https://example.org/case/100",
    "license": "CC BY-NC-SA 4.0",
    "item": {"stem": "What is the diagnosis?", "mcq": {"options": ["Infarct", "Glioma"]},
             "open_ended": {"reference_answer": "Acute ischaemic infarct"}},
    "rubric_0_to_3": {
        "Diagnosis": {"reference_answer": "Acute ischaemic infarct", "3": "exact",
                      "2": "stroke", "1": "vascular", "0": "other"},
        "Localisation": {
            "reference_answer": {"Laterality": "Left", "Organ/Region": "Brain",
                                 "Specific Substructure/Segment": "MCA territory"},
            "3": "exact", "2": "partial", "1": "broad", "0": "wrong",
        },
    },
    "diagnostic_steps": [
        {"source": "Figure 1", "essential": "essential", "step": "CT", "reason": "first"},
        {"source": "Figure 2", "essential": "optional"},
    ],
    "imaging_examinations": [
        {"figure": "Figure 1", "preferred_order": 1, "image_caption": "Non-contrast CT.",
         "meta_info": {"modality": "CT", "acquisition": "non-contrast", "view": "axial",
                       "imaged_region": "head", "contrast": "non-contrast", "time_past": None},
         "image_paths": ["images/f1.png"], "key_findings": ["hypodensity"]},
        {"figure": "Figure 2", "preferred_order": 2, "image_caption": "DWI.",
         "meta_info": {"modality": "MRI", "acquisition": "DWI/ADC", "view": "axial",
                       "imaged_region": "brain", "contrast": "non-contrast", "time_past": 6},
         "image_paths": ["images/f2.png"]},
    ],
    "images": [{"name": "Figure 1a", "caption": "CT", "path": "images/f1.png"},
               {"name": "Figure 2a", "caption": "DWI", "path": "images/f2.png"}],
    "image_detail": {"Figure 1": "insular ribbon"},
}


def make_case(case_id: str = "100", **changes: Any) -> dict[str, Any]:
    """A deep copy of a complete, problem-free draft case with ``changes`` applied."""
    case = copy.deepcopy(BASE_CASE)
    case["case_id"] = case_id
    case.update(changes)
    return case


def write_case_file(folder: Path, cases: Any, name: str = "case.json",
                    images: bool = True) -> Path:
    """Write ``cases`` (an object or a list) as JSON and a PNG for every path it names."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(cases, indent=1, ensure_ascii=False), encoding="utf-8")
    if images:
        for case in cases if isinstance(cases, list) else [cases]:
            if not isinstance(case, dict):
                continue
            for i, exam in enumerate(case.get("imaging_examinations") or []):
                for rel in exam.get("image_paths") or []:
                    target = folder / rel
                    if not target.exists():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(png_bytes(i))
    return path
