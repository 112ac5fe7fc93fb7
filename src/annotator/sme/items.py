"""Review items from JSON or JSONL: the test case, ground truth and output to judge.

One item per JSONL line, or a JSON array of items (or ``{"items": [...]}``). Every
problem names ``file:line: item ID: reason``; the service imports nothing unless every
item of every file is good.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticError

from annotator.domain.text import error_location
from annotator.inputfiles import TooDeep, files_named, loads_bounded, read_regular

MAX_BYTES = 50_000_000
SUFFIXES = (".json", ".jsonl")


class AutomatedVerdict(BaseModel):
    """The code or LLM judge's verdict on a ``hybrid`` item (shown after the SME submits)."""

    model_config = ConfigDict(extra="forbid")

    score: float | None = None
    outcome: Literal["pass", "flag"] | None = None
    passed: bool | None = None
    rationale: str | None = None
    judge: str | None = None

    @model_validator(mode="after")
    def _something(self) -> AutomatedVerdict:
        if self.score is None and self.outcome is None and self.passed is None:
            raise ValueError("an automated verdict needs a score, an outcome or passed")
        if self.outcome is not None and self.passed is not None:
            if (self.outcome == "pass") != self.passed:
                raise ValueError("outcome and passed disagree")
        return self


class ReviewItem(BaseModel):
    """One item as written in the file."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    item_id: str = Field(min_length=1, max_length=200)
    benchmarks: list[str] = Field(min_length=1)
    case_id: str | None = Field(default=None, max_length=200)
    input: Any = Field(alias="input")
    ground_truth: Any = None
    output: Any
    system: str = Field(default="", max_length=200)
    run: int | None = Field(default=None, ge=1)  # the k-th of K runs of this case (worst-of-K)
    # One verdict for an item of one benchmark, or {code: verdict} for several.
    automated: AutomatedVerdict | dict[str, AutomatedVerdict] | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_benchmark(cls, data: Any) -> Any:
        if isinstance(data, dict) and "benchmark" in data and "benchmarks" not in data:
            data = dict(data)
            data["benchmarks"] = [data.pop("benchmark")]
        return data

    @model_validator(mode="after")
    def _check(self) -> ReviewItem:
        if self.input is None or self.input == "":
            raise ValueError("input (the test case) is empty")
        if self.output is None:
            raise ValueError("output is missing")
        if len(set(self.benchmarks)) != len(self.benchmarks):
            raise ValueError("a benchmark is named twice")
        if isinstance(self.automated, dict):
            extra = sorted(set(self.automated) - set(self.benchmarks))
            if extra:
                raise ValueError(f"automated verdict for {', '.join(extra)}, not in benchmarks")
        elif self.automated is not None and len(self.benchmarks) != 1:
            raise ValueError("an item of several benchmarks gives automated as {code: verdict}")
        return self

    def automated_for(self, code: str) -> AutomatedVerdict | None:
        if isinstance(self.automated, dict):
            return self.automated.get(code)
        return self.automated

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON: re-importing the same item changes nothing."""
        dump = self.model_dump(mode="json", by_alias=True)
        if dump.get("run") is None:
            dump.pop("run", None)  # items written before runs existed keep their hash
        text = json.dumps(dump, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ItemProblem:
    file: str
    line: int
    item_id: str | None
    reason: str

    def __str__(self) -> str:
        who = f" item {self.item_id}:" if self.item_id else ""
        return f"{self.file}:{self.line}:{who} {self.reason}"


@dataclass
class ReadItems:
    items: list[tuple[ReviewItem, str, int]] = field(default_factory=list)  # item, file, line
    problems: list[ItemProblem] = field(default_factory=list)


def expand(paths: list[Path]) -> list[Path]:
    """Files named, and the item files of folders named (recursively), in a stable order."""
    return files_named(paths, SUFFIXES)


class _BadJson(ValueError):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = line, reason


def _objects(text: str, jsonl: bool) -> list[tuple[int, Any]]:
    """(line, value) of each item; _BadJson names the line of malformed text.

    A malformed JSONL line is returned as its _BadJson, so the other lines are still checked.
    """
    if jsonl:
        out: list[tuple[int, Any]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    out.append((number, loads_bounded(line)))
                except json.JSONDecodeError as exc:
                    out.append((number, _BadJson(number, exc.msg)))
                except ValueError as exc:  # nested too deeply
                    out.append((number, _BadJson(number, str(exc))))
        return out
    try:
        return _array(text)
    except json.JSONDecodeError as exc:
        raise _BadJson(exc.lineno, exc.msg) from None
    except TooDeep as exc:
        raise _BadJson(1, str(exc)) from None


def _array(text: str) -> list[tuple[int, Any]]:
    decoder = json.JSONDecoder()
    data = loads_bounded(text)  # bounded here, so each item decoded below is too
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        start = text.index("[", text.index('"items"'))
    elif isinstance(data, list):
        start = text.index("[")
    else:
        return [(1, data)]
    out: list[tuple[int, Any]] = []
    pos = start + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return out
        value, end = decoder.raw_decode(text, pos)
        out.append((text.count("\n", 0, pos) + 1, value))
        pos = end


def _reason(exc: PydanticError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = error_location(err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def read_items(paths: list[Path]) -> ReadItems:
    """Every item of every file, and every problem (bad JSON, bad fields, duplicate ids)."""
    result = ReadItems()
    files = expand(paths)
    if not files:
        result.problems.append(
            ItemProblem(" ".join(map(str, paths)), 1, None, "no JSON file found")
        )
    seen: dict[str, str] = {}
    for path in files:
        name = str(path)
        try:
            text = read_regular(path, MAX_BYTES).decode("utf-8")
            objects = _objects(text, path.suffix == ".jsonl")
        except _BadJson as exc:
            result.problems.append(ItemProblem(name, exc.line, None, f"not valid JSON: {exc}"))
            continue
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or exc
            result.problems.append(ItemProblem(name, 1, None, f"cannot read: {why}"))
            continue
        for line, value in objects:
            if isinstance(value, _BadJson):
                result.problems.append(ItemProblem(name, line, None, f"not valid JSON: {value}"))
                continue
            ident = str(value.get("item_id")) if isinstance(value, dict) else None
            if not isinstance(value, dict):
                result.problems.append(ItemProblem(name, line, None, "an item must be an object"))
                continue
            try:
                item = ReviewItem.model_validate(value)
            except PydanticError as exc:
                result.problems.append(ItemProblem(name, line, ident, _reason(exc)))
                continue
            if item.item_id in seen:
                result.problems.append(
                    ItemProblem(
                        name, line, item.item_id, f"item id also used at {seen[item.item_id]}"
                    )
                )
                continue
            seen[item.item_id] = f"{name}:{line}"
            result.items.append((item, name, line))
    return result
