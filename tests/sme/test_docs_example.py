"""The complete benchmark YAML example of docs/sme-review.md lints clean, every field used."""

from __future__ import annotations

import re
from pathlib import Path

from annotator.sme.lint import lint
from annotator.sme.spec import Benchmark, ScoringScale

DOC = Path(__file__).resolve().parents[2] / "docs" / "sme-review.md"


def _example() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### A complete specification", 1)[1]
    found = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert found, "the section has no yaml block"
    return found.group(1)


def test_the_documented_example_lints_clean_and_uses_every_field(tmp_path: Path) -> None:
    path = tmp_path / "a-neg.yaml"
    path.write_text(_example(), encoding="utf-8")
    result = lint([path])
    assert [str(p) for p in result.problems] == []
    assert [b.code for b, _ in result.benchmarks] == ["A-NEG1", "A-NEG2"]
    first = result.benchmarks[0][1].data
    assert set(first) == set(Benchmark.model_fields)
    assert set(first["scoring_scale"]) == set(ScoringScale.model_fields)
