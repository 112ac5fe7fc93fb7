"""What a DICOM header says about an exam, in the case schema's metadata words.

The metadata editor shows these beside the draft's ``meta_info`` so a physician can spot a
template error (for example a draft saying "MRI" on a CT file). Only values the header
actually holds are returned; nothing is guessed from absent tags.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotator.imaging import _dicom

if TYPE_CHECKING:
    from pydicom.dataset import Dataset

# DICOM Modality (0008,0060) -> the request matcher's modality vocabulary.
_MODALITY = {
    "CT": "CT",
    "MR": "MRI",
    "US": "Ultrasound",
    "CR": "X-ray",
    "DX": "X-ray",
    "RF": "X-ray",
    "MG": "X-ray",
    "XA": "DSA",
    "PT": "PET/CT",
    "NM": "Nuclear medicine",
}
# Series description words -> the acquisition vocabulary, most specific first.
_ACQUISITION_WORDS = (
    ("FLAIR", "FLAIR"),
    ("SWI", "SWI"),
    ("DWI", "DWI/ADC"),
    ("ADC", "DWI/ADC"),
    ("DIFFUSION", "DWI/ADC"),
    ("STIR", "STIR"),
    ("PERF", "perfusion"),
    ("T2", "T2"),
    ("T1", "T1"),
    ("GRE", "GRE"),
)
_VIEW_POSITION = {"AP": "AP", "PA": "PA", "LAT": "lateral", "LL": "lateral", "RL": "lateral"}


def header_values(data: bytes) -> dict[str, str]:
    """Header-derived metadata of a DICOM file, keyed like the case schema's ``meta_info``.

    Possible keys: ``modality``, ``acquisition``, ``imaged_region``, ``contrast``,
    ``view``, ``series_description``, ``study_date`` (YYYY-MM-DD). Returns ``{}`` for data
    that is not DICOM or cannot be parsed.
    """
    if not (_dicom.has_preamble(data) or _dicom.might_be_headerless(data)):
        return {}
    try:
        ds = _dicom.cached_parse(data).ds
        return _values(ds)
    except Exception:  # noqa: BLE001 - a header we cannot read simply has nothing to say
        return {}


def _values(ds: Dataset) -> dict[str, str]:
    found: dict[str, str] = {}
    modality = _text(ds, "Modality").upper()
    if modality in _MODALITY:
        found["modality"] = _MODALITY[modality]
    elif modality:
        found["modality"] = modality
    description = _text(ds, "SeriesDescription")
    if modality == "MR" and description:
        acquisition = acquisition_label(description)
        if acquisition:
            found["acquisition"] = acquisition
    region = _text(ds, "BodyPartExamined")
    if region:
        found["imaged_region"] = region.lower().replace("_", " ")
    # Contrast is only asserted when an agent is named; absence proves nothing.
    agent = _text(ds, "ContrastBolusAgent")
    if agent:
        found["contrast"] = "post-contrast"
    view = _view(ds)
    if view:
        found["view"] = view
    if description:
        found["series_description"] = description
    study_date = _text(ds, "StudyDate")
    if len(study_date) == 8 and study_date.isdigit():
        found["study_date"] = f"{study_date[:4]}-{study_date[4:6]}-{study_date[6:]}"
    return found


def _text(ds: Dataset, keyword: str) -> str:
    value: Any = ds.get(keyword)
    if value is None:
        return ""
    return str(value).strip()


def acquisition_label(description: str) -> str | None:
    """The acquisition word a series description names (``FLAIR``, ``T1``...), if any."""
    upper = description.upper()
    for word, label in _ACQUISITION_WORDS:
        if word in upper:
            if label == "T1" and any(m in upper for m in ("+C", "GAD", "POST", "CONTRAST")):
                return "post-contrast T1"
            return label
    return None


def _view(ds: Dataset) -> str | None:
    """Plane from ImageOrientationPatient (cross-sectional), else the X-ray ViewPosition."""
    orientation: Any = ds.get("ImageOrientationPatient")
    if orientation is not None and len(orientation) == 6:
        try:
            return plane_from_orientation([float(v) for v in orientation])
        except (TypeError, ValueError):
            pass
    position = _text(ds, "ViewPosition").upper()
    return _VIEW_POSITION.get(position) if position else None


def plane_from_orientation(orientation: list[float]) -> str | None:
    """``axial``/``sagittal``/``coronal`` from the six direction cosines (row, column).

    The slice normal (row x column) points along the patient axis the plane is
    perpendicular to: z (feet-head) for axial, x (right-left) for sagittal, y for coronal.
    """
    if len(orientation) != 6:
        return None
    rx, ry, rz, cx, cy, cz = orientation
    normal = (ry * cz - rz * cy, rz * cx - rx * cz, rx * cy - ry * cx)
    magnitudes = [abs(component) for component in normal]
    if max(magnitudes) == 0.0:
        return None
    axis = magnitudes.index(max(magnitudes))
    return ("sagittal", "coronal", "axial")[axis]
