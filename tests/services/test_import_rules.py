"""Import rules at the store: what a curator sees for each kind of file (real files)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pydicom
import pytest

from annotator.cli import main
from annotator.services import annotating
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.status import project_status
from annotator.store.schema import CaseImage
from factories import make_case, write_case_file


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_import_reports_each_case_and_reimport_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = str(tmp_path / "p")
    _run(capsys, "--project", project, "users", "add", "Kim", "--role", "curator")
    good = write_case_file(tmp_path / "a", [make_case("G1"), make_case("G2")])
    bad = tmp_path / "b" / "broken.json"
    bad.parent.mkdir()
    bad.write_text('{"case_id": "X1", "imaging_examinations": [', encoding="utf-8")
    wrong = write_case_file(tmp_path / "c", make_case("W1"), name="wrong.json")
    data = json.loads(wrong.read_text())
    data["imaging_examinations"][0]["preferred_order"] = "1.5"
    wrong.write_text(json.dumps(data))

    code, out, err = _run(capsys, "--project", project, "import", str(good), str(bad), str(wrong))
    assert code == 1 and err == ""
    assert "added       G1" in out and "added       G2" in out
    assert f"rejected    -  {bad}" in out
    assert "imaging_examinations[0].preferred_order" in out and "W1" in out
    assert "Traceback" not in out

    code, out, _ = _run(capsys, "--project", project, "import", str(good))
    assert code == 0
    assert "unchanged   G1" in out and "nothing changed" in out
    code, out, _ = _run(capsys, "--project", project, "status", "--json")
    assert json.loads(out)["cases"] == 2


def test_changed_case_is_updated_while_untouched(team, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import_cases(team, "cu", [write_case_file(tmp_path / "v1", make_case("U1"))])
    assign(team, "cu", 2)
    revised = make_case("U1", clinical_history="Corrected history.")
    report = import_cases(team, "cu", [write_case_file(tmp_path / "v2", revised)])
    assert [o.status for o in report.outcomes] == ["updated"]
    # least-loaded first, ties by name: a1 and a2 hold the case and now see the new draft
    for name in ("a1", "a2"):
        view = annotating.view(team, name, "U1")
        assert view.content["clinical_history"] == "Corrected history."
        assert view.state == "assigned" and not view.needs_recheck


def test_needs_fix_and_warnings_are_reported_and_counted(team, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    case = make_case("F1")
    case["diagnostic_steps"][1]["source"] = "Fig. 2"
    case["imaging_examinations"][0]["meta_info"]["contrast"] = "No contrast"
    del case["images"][2]["license"]
    report = import_cases(team, "cu", [write_case_file(tmp_path / "f", case)])
    outcome = report.outcomes[0]
    assert outcome.status == "added"
    assert any("Fig. 2" in text for text in outcome.needs_fix)
    assert any("No contrast" in text for text in outcome.needs_fix)
    assert any("licen" in text.lower() for text in outcome.warnings)
    assert project_status(team)["needs_fix"] == 1


def test_dicom_patient_name_is_removed_before_storage(team, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from pydicom.data import get_testdata_file

    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm", download=False))
    ds.PatientName = "Doe^Jane"
    ds.PatientID = "MRN-778899"
    folder = tmp_path / "dcm"
    case = make_case("D1")
    case["imaging_examinations"][0]["image_paths"] = ["img/ct.dcm"]
    case["images"][0]["path"] = "img/ct.dcm"
    write_case_file(folder, case)
    ds.save_as(folder / "img" / "ct.dcm", enforce_file_format=True)
    report = import_cases(team, "cu", [folder / "cases.json"])
    assert report.outcomes[0].status == "added"
    assert any("PatientName" in r for r in report.outcomes[0].removed)
    with team.tx() as session:
        from sqlalchemy import select

        dicom = CaseImage.media_type == "application/dicom"
        image = session.scalars(select(CaseImage).where(dicom)).one()
        stored = team.images.get(session, image.sha256)
    assert b"Doe^Jane" not in stored and b"MRN-778899" not in stored
    again = pydicom.dcmread(io.BytesIO(stored))
    assert str(again.PatientName) != "Doe^Jane"
    # same input, same project seed: importing again changes nothing
    assert import_cases(team, "cu", [folder / "cases.json"]).outcomes[0].status == "unchanged"
