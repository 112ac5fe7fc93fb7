"""The round-trip subcommands end to end, and the demo's simulated offline physician."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sync_support import ALPHA, complete, setup_curator

import annotator.cli as cli
from annotator.services import annotating
from annotator.services.sync.demo import demo_offline_round_trip
from annotator.services.sync.status import roundtrip_status
from annotator.store.project import Project, open_project


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]

    def call(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out = capsys.readouterr()
        return code, out.out, out.err

    return call


@pytest.fixture
def sqlite_curator(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = open_project(tmp_path / "curator")
    setup_curator(project, tmp_path / "drafts")
    yield project
    project.close()


def test_commands_make_the_whole_round_trip(run, sqlite_curator: Project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cur = str(sqlite_curator.location)
    bundle, laptop_dir = tmp_path / "a.annotator-bundle", tmp_path / "laptop"
    code, out, _ = run("--project", cur, "bundle", "--annotator", ALPHA, "--out", str(bundle))
    assert code == 0 and "2 case(s)" in out
    code, out, _ = run("--project", str(laptop_dir), "unbundle", str(bundle))
    assert code == 0 and "ready in" in out
    laptop = open_project(laptop_dir, create=False)
    try:
        complete(laptop, ALPHA, "T1")
    finally:
        laptop.close()
    package = tmp_path / "a.annotator-package"
    code, out, _ = run("--project", str(laptop_dir), "package", "--out", str(package))
    assert code == 0 and "package 1 of" in out

    code, out, _ = run("--project", cur, "package-import", str(package), "--json")
    assert code == 0
    [report] = json.loads(out)
    assert [(c["case_id"], c["status"]) for c in report["cases"]] == [("T1", "added")]
    code, out, _ = run("--project", cur, "package-import", str(package))
    assert code == 0 and "already imported" in out

    cut = tmp_path / "cut.annotator-package"
    cut.write_bytes(package.read_bytes()[:100])
    code, out, err = run("--project", cur, "package-import", str(package), str(cut))
    assert code == cli.EXIT_FAILED and "refused whole, nothing applied" in err
    assert "already imported" in out  # the other file is still reported

    code, out, _ = run("--project", cur, "roundtrip-status", "--json")
    alpha = next(r for r in json.loads(out) if r["annotator"] == ALPHA)
    assert (alpha["assigned"], alpha["bundled"], alpha["returned"]) == (2, 2, 1)
    code, out, _ = run("--project", cur, "roundtrip-status")
    assert code == 0 and ALPHA in out


def test_unbundle_needs_a_new_folder(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("unbundle", str(tmp_path / "missing.annotator-bundle"))
    assert code == cli.EXIT_ERROR and "--project DIR" in err
    code, _, err = run("--project", str(tmp_path / "l"), "unbundle", str(tmp_path / "missing"))
    assert code == cli.EXIT_ERROR and "no such file" in err
    assert not (tmp_path / "l").exists()


def test_demo_round_trip_of_one_physician(sqlite_curator: Project, tmp_path: Path) -> None:
    demo_offline_round_trip(sqlite_curator, ALPHA, ["T1", "T2"], tmp_path / "work")
    for case_id in ("T1", "T2"):
        view = annotating.view(sqlite_curator, ALPHA, case_id)
        assert view.state == "submitted"
        assert view.labels["importance:Figure 3"] == {"value": "essential", "how": "set"}
        assert view.labels["importance:Figure 1"] == {"value": "essential", "how": "accepted"}
    [alpha] = [r for r in roundtrip_status(sqlite_curator) if r.annotator == ALPHA]
    assert alpha.returned == 2 and alpha.packages == 1
