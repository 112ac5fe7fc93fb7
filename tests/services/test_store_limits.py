"""What crashed only the PostgreSQL store is refused with a reason on both stores alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError as PydanticError

from annotator.errors import ValidationError
from annotator.services.imports import import_cases
from annotator.services.users import add_user, list_users
from annotator.sync.formats import PackageManifest
from factories import make_case, write_case_file


def test_over_long_ids_and_figures_are_rejections_on_both_stores(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    add_user(project, "(setup)", "cu", ["curator"])
    long_id = make_case("x" * 250)
    long_figure = make_case("F")
    long_figure["imaging_examinations"][0]["figure"] = "Figure " + "1" * 250
    control = make_case("bell\x07")
    file = write_case_file(tmp_path / "d", [long_id, long_figure, control, make_case("ok")])
    report = import_cases(project, "cu", [file])
    outcomes = {o.case_id or "-": (o.status, o.reason or "") for o in report.outcomes}
    assert outcomes["ok"][0] == "added"
    rejected = [why for status, why in outcomes.values() if status == "rejected"]
    assert len(rejected) == 3
    assert any("at most 200" in why for why in rejected)
    assert any("200 characters" in why for why in rejected)
    assert any("control character U+0007" in why for why in rejected)


def test_user_names_are_bounded_and_printable(project) -> None:  # type: ignore[no-untyped-def]
    add_user(project, "(setup)", "cu", ["curator"])
    for bad in ("x" * 201, "Eve\x00", "tab\x0bname"):
        with pytest.raises(ValidationError):
            add_user(project, "cu", bad, ["annotator"])
    assert [u.name for u in list_users(project)] == ["cu"]


def test_a_package_sequence_beyond_the_store_integer_is_refused() -> None:
    with pytest.raises(PydanticError, match="less than 2147483648"):
        PackageManifest.model_validate({
            "format_version": 2, "app_version": "x", "project_id": "p", "annotator": "a",
            "created_at": "2026-01-01T00:00:00", "cases": [], "files": [], "checksum": "0" * 64,
            "package_id": "00000000-0000-4000-8000-000000000001",
            "source_id": "00000000-0000-4000-8000-000000000002", "sequence": 2**31,
            "bundle_id": "00000000-0000-4000-8000-000000000003",
        })
