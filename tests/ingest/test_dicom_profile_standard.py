"""The DICOM profile held against the standard: PS3.15 Table E.1-1, as ``dicom-anonymizer``
ships it (``dicom_anonymization_databases/dicomfields_2026c.py``, the 2026c edition of the
table, maintained with the standard; a test-only dependency).

Every attribute the app keeps (``dicom_profile.KEEP``) is either one the Basic Profile keeps
(the table does not list it), or one it lists whose action the app carries out, or one a
named option of Table E.1-1 keeps; each of those is named below with the reason. A new kept
attribute that the table lists fails here until someone says which rule keeps it.
"""

from __future__ import annotations

from dicomanonymizer.dicom_anonymization_databases import dicomfields_2026c as table
from pydicom.data import get_testdata_file
from pydicom.datadict import tag_for_keyword

from annotator.ingest.deidentify import deidentify_dicom, read_dicom
from annotator.ingest.dicom_profile import KEEP

BASIC = "Basic Profile action"
DATES = "Retain Longitudinal Temporal Information with Modified Dates Option"
DESCRIPTORS = "Clean Descriptors Option"

# Kept attributes that Table E.1-1 lists, how the app treats each, and the rule that allows it.
LISTED: dict[str, tuple[str, str]] = {
    "PatientName": ("kept empty (type 2)", f"{BASIC} Z"),
    "PatientID": ("kept empty (type 2)", f"{BASIC} Z"),
    **{keyword: ("kept empty when the input has it (type 2)", f"{BASIC} Z")
       for keyword in ("PatientBirthDate", "PatientSex", "StudyTime", "ReferringPhysicianName",
                       "StudyID", "AccessionNumber")},
    "StudyInstanceUID": ("replaced (dicognito, seeded per project)", f"{BASIC} U"),
    "SeriesInstanceUID": ("replaced", f"{BASIC} U"),
    "SOPInstanceUID": ("replaced", f"{BASIC} U"),
    "FrameOfReferenceUID": ("replaced", f"{BASIC} U"),
    "StudyDate": ("shifted by a per-project offset", DATES),
    "SeriesDate": ("shifted by a per-project offset", DATES),
    "SeriesDescription": ("replaced by a controlled acquisition word", DESCRIPTORS),
    "ContrastBolusAgent": ("replaced by the word CONTRAST", DESCRIPTORS),
}


def _actions() -> dict[int, str]:
    """Tag -> the Basic Profile's action code(s) in Table E.1-1 (X, Z, D, U, X/Z, ...)."""
    found: dict[int, str] = {}
    for name in dir(table):
        if name.endswith("_TAGS") and name != "ALL_TAGS":
            code = name.removesuffix("_TAGS").replace("_STAR", "*").replace("_", "/")
            for entry in getattr(table, name):
                if len(entry) == 2:  # longer entries are repeating groups (overlays, curves)
                    group, element = entry
                    found[(group << 16) | element] = code
    return found


def test_the_table_is_the_full_one() -> None:
    assert len(_actions()) > 500  # the 2026c table lists several hundred attributes


def test_every_kept_attribute_is_kept_by_the_basic_profile_or_a_named_option() -> None:
    actions = _actions()
    listed = {}
    for keyword in sorted(KEEP):
        tag = tag_for_keyword(keyword)
        assert tag is not None, f"{keyword} is not a DICOM keyword"
        if tag in actions:
            listed[keyword] = actions[tag]
    assert set(listed) == set(LISTED), (
        "kept attributes Table E.1-1 lists, without a named rule: "
        f"{sorted(set(listed) - set(LISTED))}; named but no longer kept or listed: "
        f"{sorted(set(LISTED) - set(listed))}")
    for keyword, (_, rule) in LISTED.items():
        if rule.startswith(BASIC):  # the app does what the table's action says
            assert rule.removeprefix(BASIC).strip() in listed[keyword].split("/"), keyword


def test_the_listed_attributes_are_treated_as_named() -> None:
    source = get_testdata_file("CT_small.dcm", download=False)
    assert source is not None
    data = open(source, "rb").read()  # noqa: SIM115 - a test fixture
    before = read_dicom(data)
    out, _ = deidentify_dicom(data, seed="standard", name="ct")
    after = read_dicom(out)
    for emptied in ("PatientName", "PatientID", "PatientBirthDate", "PatientSex", "StudyTime",
                    "ReferringPhysicianName", "StudyID", "AccessionNumber"):
        assert str(after.get(emptied, "")) == "", emptied
    for uid in ("StudyInstanceUID", "SeriesInstanceUID", "SOPInstanceUID",
                "FrameOfReferenceUID"):
        if uid in before:
            assert after[uid].value != before[uid].value, uid
    for date in ("StudyDate", "SeriesDate"):
        if date in before and before[date].value:
            assert after[date].value != before[date].value, date
    assert str(after.get("PatientIdentityRemoved", "")) == "YES"
