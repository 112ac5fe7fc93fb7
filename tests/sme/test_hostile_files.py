"""Issue 23: SME items and benchmark YAML nested deeply, or given as a FIFO, are one-line
problems (the other items and files are still checked), never a crash or a hang."""

from __future__ import annotations

import json
import os
from pathlib import Path

from annotator.sme.items import read_items
from annotator.sme.lint import lint

from .specs import valid_set

ITEM = {"item_id": "it-01", "benchmark": "A-NEG2", "input": "x", "ground_truth": {},
        "output": {}}


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_deeply_nested_items_are_problems_and_the_good_lines_are_read(tmp_path: Path) -> None:
    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text(json.dumps(ITEM) + "\n" + '{"item_id": "deep", "output": '
                     + _deep(300) + "}\n" + _deep(5000) + "\n", "utf-8")
    array = tmp_path / "array.json"
    array.write_text('[{"item_id": "x", "output": ' + _deep(5000) + "}]", "utf-8")
    read = read_items([jsonl, array])
    assert [i.item_id for i, _, _ in read.items] == ["it-01"]
    reasons = [(Path(p.file).name, p.line, p.reason) for p in read.problems]
    assert reasons == [("items.jsonl", 2, "not valid JSON: nested deeper than 64 levels"),
                       ("items.jsonl", 3, "not valid JSON: nested deeper than 64 levels"),
                       ("array.json", 1, "not valid JSON: nested deeper than 64 levels")]


def test_an_items_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "items.jsonl"
    os.mkfifo(fifo)
    read = read_items([fifo])
    assert [p.reason for p in read.problems] == ["cannot read: not a regular file (a folder,"
                                                 " device, FIFO or socket)"]


def test_deeply_nested_yaml_is_a_problem_and_the_other_files_are_linted(tmp_path: Path) -> None:
    files = valid_set(tmp_path)
    flow = tmp_path / "flow.yaml"
    flow.write_text("code: " + _deep(900) + "\n", "utf-8")
    block = tmp_path / "block.yaml"
    block.write_text("".join("  " * i + "k:\n" for i in range(300)) + "  " * 300 + "k: 1\n",
                     "utf-8")
    result = lint([*files, flow, block])
    assert sorted(b.code for b, _ in result.benchmarks) == ["A-NEG1", "A-NEG2"]
    deep = [(Path(p.file).name, p.code, p.message) for p in result.problems
            if p.code == "E-YAML"]
    assert deep == [("block.yaml", "E-YAML", "nested deeper than 64 levels"),
                    ("flow.yaml", "E-YAML", "nested deeper than 64 levels")]
