"""croissant.json validates with mlcroissant and its records load (test dependency only)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from annotator.services.export import save_card_settings
from annotator.store.project import Project
from conftest import CURATOR

mlc = pytest.importorskip("mlcroissant")


@pytest.fixture(scope="module")
def licensed(released: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from annotator.services.export import export_release

    save_card_settings(released, CURATOR, name="Test benchmark",
                       license="https://creativecommons.org/licenses/by-nc-sa/4.0/",
                       dataset_url="https://example.org/data")
    out = tmp_path_factory.mktemp("croissant") / "release"
    export_release(released, CURATOR, out, version="1.2.3", date="2026-05-06")
    return out


def test_croissant_validates_and_its_records_load(licensed: Path) -> None:
    dataset = mlc.Dataset(jsonld=licensed / "croissant.json")
    metadata = dataset.metadata
    assert metadata.ctx.issues.errors == set()
    assert metadata.ctx.issues.warnings == set()
    assert metadata.version == "1.2.3"
    cases = list(dataset.records("cases"))
    assert sorted(r["cases/case_id"] for r in cases) == [b"R1", b"R2", b"case 3"]
    images = list(dataset.records("images"))
    assert len(images) == 10
    paths = {r["images/path"].decode(): r["images/sha256"].decode() for r in images}
    png = (licensed / "images/R1/figure_4-1.png").read_bytes()
    assert paths["images/R1/figure_4-1.png"] == hashlib.sha256(png).hexdigest()
    counts = {r["counts/quantity"]: r["counts/count"] for r in dataset.records("counts")}
    assert counts["released_cases"] == 3 and counts["images"] == 10


def test_rai_fields_are_text_and_files_carry_checksums(licensed: Path) -> None:
    doc = json.loads((licensed / "croissant.json").read_text("utf-8"))
    assert doc["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    rai = {k: v for k, v in doc.items() if k.startswith("rai:")}
    assert {"rai:dataCollection", "rai:dataUseCases", "rai:dataLimitations",
            "rai:personalSensitiveInformation", "rai:annotationsPerItem"} <= set(rai)
    for value in rai.values():
        assert isinstance(value, str) or all(isinstance(v, str) for v in value)
    assert rai["rai:annotationsPerItem"] == "2"
    files = {d["contentUrl"]: d for d in doc["distribution"] if d["@type"] == "cr:FileObject"}
    assert {"release.json", "images.csv", "ATTRIBUTION.tsv", "BENCHMARK_CARD.md"} <= set(files)
    for rel, entry in files.items():
        assert entry["sha256"] == hashlib.sha256((licensed / rel).read_bytes()).hexdigest()
    assert doc["license"] == "https://creativecommons.org/licenses/by-nc-sa/4.0/"
    assert doc["datePublished"] == "2026-05-06"
