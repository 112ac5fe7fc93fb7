"""The release publishes the history chain's head; ``validate --project`` checks the store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select

import annotator.cli
from annotator.export import layout as L
from annotator.export.validate import release_history_head, validate_release
from annotator.services.export import export_release
from annotator.services.users import add_user
from annotator.store.project import Project
from annotator.store.schema import HistoryEntry
from chain_support import rewrite_and_rehash, tamper_with
from conftest import CURATOR


@pytest.fixture
def release(build_project: Callable[..., Project], project_location: str,
            tmp_path: Path) -> tuple[Project, Path]:
    project = build_project(project_location)
    out = tmp_path / "release"
    export_release(project, CURATOR, out, version="1.0.0", date="2026-05-06")
    return project, out


def _validate(project: Project, folder: Path,
              capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = annotator.cli.main(["--project", project.location, "validate", str(folder)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_the_card_and_croissant_publish_the_head_the_store_contains(
    release: tuple[Project, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = release
    head = release_history_head(out)
    assert head is not None
    assert f"History chain head: `{head}`" in (out / L.CARD_MD).read_text("utf-8")
    assert json.loads((out / L.CROISSANT_JSON).read_text("utf-8"))["historyChainHead"] == head
    assert head not in (out / L.MANIFEST).read_text("utf-8")  # sha256sum -c reads that one
    with project.read() as session:
        rows = list(session.scalars(select(HistoryEntry).order_by(HistoryEntry.seq)))
    # The head is the last row before the export recorded itself.
    assert rows[-1].action == "release_exported" and rows[-2].row_hash == head
    add_user(project, CURATOR, "Dr Later", ["annotator"])  # work goes on after the release
    code, text = _validate(project, out, capsys)
    assert code == 0 and "valid release" in text


def test_validate_names_a_store_whose_history_was_rewritten_after_the_release(
    release: tuple[Project, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = release
    assert validate_release(out) == []
    rewrite_and_rehash(project, tamper_with(project.location), 2,
                       {"name": "Dr Forged", "roles": ["curator"]})
    code, text = _validate(project, out, capsys)
    assert code == 1
    assert "the project's history no longer contains the release's head" in text
    assert "chain is broken" not in text  # every hash was recomputed: only the head shows it
    assert validate_release(out) == []  # the release itself is untouched


def test_validate_names_a_broken_chain_and_disagreeing_heads(
    release: tuple[Project, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = release
    tamper_with(project.location)("UPDATE history SET actor = 'someone else' WHERE seq = 2")
    code, text = _validate(project, out, capsys)
    assert code == 1 and "the project's history chain is broken: row 2" in text
    card = out / L.CARD_MD
    head = release_history_head(out)
    assert head is not None
    card.write_text(card.read_text("utf-8").replace(head, "f" * 64), "utf-8")
    assert (f"{L.CARD_MD} and {L.CROISSANT_JSON} state different history chain heads"
            in validate_release(out))
