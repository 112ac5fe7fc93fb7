"""The export's privacy gate: a second check, after import's de-identification.

Two kinds of finding stop an export: image metadata that can identify a patient (PNG text
chunks, JPEG EXIF/comments, DICOM files that were never de-identified or still carry private
tags or a burned-in-annotation flag), and release text that names a user of the project
(the release promises pseudonyms only). Burned-in text inside the pixels is not detected.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping

from annotator.export.errors import ExportError
from annotator.imaging.probe import DICOM, JPEG, PNG
from annotator.ingest.deidentify import read_dicom, strip_jpeg, strip_png

# Attributes that name or identify a patient or the people and place around the study.
IDENTIFYING_DICOM = (
    "PatientName", "PatientID", "PatientBirthDate", "PatientBirthTime", "OtherPatientNames",
    "OtherPatientIDs", "OtherPatientIDsSequence", "PatientAddress", "PatientTelephoneNumbers",
    "PatientMotherBirthName", "MedicalRecordLocator", "IssuerOfPatientID", "AccessionNumber",
    "StudyID", "ReferringPhysicianName", "PerformingPhysicianName", "OperatorsName",
    "PhysiciansOfRecord", "NameOfPhysiciansReadingStudy", "RequestingPhysician",
    "InstitutionName", "InstitutionAddress", "StationName",
)


class PrivacyError(ExportError):
    """The gate found something identifying; ``findings`` lists each one (file: what)."""

    def __init__(self, findings: list[str]) -> None:
        lines = "\n".join(f"  {f}" for f in findings)
        super().__init__(
            f"the privacy gate stopped the export ({len(findings)} finding(s)); nothing was"
            f" written:\n{lines}"
        )
        self.findings = findings


def _present(removed: Iterable[str]) -> list[str]:
    # The strip functions report what they would remove; here nothing is removed, only found.
    return [r.replace(" removed", " present") for r in removed]


def image_findings(label: str, data: bytes, media_type: str) -> list[str]:
    """What in one image file's metadata could identify a patient (empty: nothing)."""
    if media_type == PNG:
        return [f"{label}: {item}" for item in _present(strip_png(data)[1])]
    if media_type == JPEG:
        return [f"{label}: {item}" for item in _present(strip_jpeg(data)[1])]
    if media_type == DICOM:
        return [f"{label}: {item}" for item in dicom_findings(data)]
    return [f"{label}: unknown media type {media_type!r}; cannot check its metadata"]


def dicom_findings(data: bytes) -> list[str]:
    """Identifying attributes of a DICOM file that was not de-identified, private tags, flags."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = read_dicom(data)
    except Exception as exc:  # noqa: BLE001 - unreadable means unchecked: refuse it
        return [f"DICOM cannot be read to check its metadata ({exc})"]
    found: list[str] = []
    private: list[object] = []
    ds.walk(lambda _ds, elem: private.append(elem) if elem.tag.is_private else None)
    if private:
        found.append(f"{len(private)} private tag(s) present")
    if str(ds.get("BurnedInAnnotation", "")).upper() == "YES":
        found.append("BurnedInAnnotation is YES: the pixels carry text")
    marked = bool(str(ds.get("DeidentificationMethod", "")).strip()) or (
        str(ds.get("PatientIdentityRemoved", "")).upper() == "YES"
    )
    if not marked:
        present = [k for k in IDENTIFYING_DICOM if _has_value(ds.get(k))]
        what = ", ".join(present) if present else "no identifying attribute set"
        found.append(f"not de-identified (no DeidentificationMethod); {what}")
    return found


def _has_value(value: object) -> bool:
    if value is None:
        return False
    try:
        return len(value) > 0  # type: ignore[arg-type]
    except TypeError:
        return bool(str(value).strip())


def _name_pattern(name: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in name.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def name_findings(texts: Mapping[str, bytes], names: Iterable[str]) -> list[str]:
    """Every line of the release's text files that names a project user."""
    patterns = [(n, _name_pattern(n)) for n in sorted(set(names)) if n.strip()]
    found: list[str] = []
    for path in sorted(texts):
        text = texts[path].decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            for name, pattern in patterns:
                if pattern.search(line):
                    found.append(f"{path}: line {number} names user {name!r}")
    return found


def check(findings: list[str]) -> None:
    """Raise :class:`PrivacyError` when there is any finding."""
    if findings:
        raise PrivacyError(findings)
