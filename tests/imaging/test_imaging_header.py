"""header_values reads what a DICOM header says, in the case schema's words."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from annotator.imaging.dicom_header import header_values, plane_from_orientation


def test_ct_small_header(dicom_bytes: Callable[[str], bytes]) -> None:
    assert header_values(dicom_bytes("CT_small.dcm")) == {
        "modality": "CT",
        "contrast": "post-contrast",  # ContrastBolusAgent ISOVUE300/100
        "view": "axial",
        "study_date": "2004-01-19",
    }


def test_mr_header_maps_modality_and_omits_absent_values(
    dicom_bytes: Callable[[str], bytes],
) -> None:
    values = header_values(dicom_bytes("MR_small.dcm"))
    assert values["modality"] == "MRI"
    assert "contrast" not in values and "imaged_region" not in values


def test_series_description_body_part_and_sagittal_plane(
    edited_dicom: Callable[..., bytes],
) -> None:
    data = edited_dicom(
        "MR_small.dcm",
        SeriesDescription="SAG T1 POST GAD",
        BodyPartExamined="HEAD",
        ImageOrientationPatient=[0, 1, 0, 0, 0, -1],
    )
    values = header_values(data)
    assert values["acquisition"] == "post-contrast T1"
    assert values["imaged_region"] == "head"
    assert values["view"] == "sagittal"
    assert values["series_description"] == "SAG T1 POST GAD"


def test_flair_acquisition(edited_dicom: Callable[..., bytes]) -> None:
    data = edited_dicom("MR_small.dcm", SeriesDescription="Ax T2 FLAIR")
    assert header_values(data)["acquisition"] == "FLAIR"


def test_radiograph_view_position(edited_dicom: Callable[..., bytes]) -> None:
    data = edited_dicom(
        "CT_small.dcm", Modality="DX", ViewPosition="LAT", ImageOrientationPatient=None
    )
    values = header_values(data)
    assert (values["modality"], values["view"]) == ("X-ray", "lateral")


@pytest.mark.parametrize(
    ("cosines", "plane"),
    [
        ([1, 0, 0, 0, 1, 0], "axial"),
        ([0, 1, 0, 0, 0, -1], "sagittal"),
        ([1, 0, 0, 0, 0, -1], "coronal"),
        ([0.98, 0.17, 0, -0.17, 0.98, 0.05], "axial"),  # slightly tilted axial
    ],
)
def test_plane_from_orientation(cosines: list[float], plane: str) -> None:
    assert plane_from_orientation([float(c) for c in cosines]) == plane


def test_non_dicom_has_no_header(gradient_png: bytes) -> None:
    assert header_values(gradient_png) == {}
    assert header_values(b"") == {}
