"""Fuzz targets for every reader of outside files, run by ``test_fuzz_readers.py`` in a child.

Each target is a hypothesis property over one reader, driven without a store: the file is
a committed or generated seed with bytes flipped, inserted or cut, or one JSON value replaced
by hostile JSON (deep nesting, NUL, lone surrogates, long text, wrong types). The reader must
answer with its result or a one-line refusal, never a traceback, and a run that also holds a
good file still reads the good one. The child caps its own address space (``limit_memory``)
so an example that needs more than 300 MiB fails as a MemoryError, and hypothesis gives each
example a deadline; the parent's timeout catches a true hang.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import io
import json
import resource
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from json_edits import json_paths

TESTS = Path(__file__).resolve().parent
EXAMPLES = 20
FUZZ = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=10), derandomize=True,
                database=None, suppress_health_check=list(HealthCheck))
HOSTILE_TEXT = st.sampled_from(["\x00", "\ud800", "x" * 100_000, "\t", "é", "\u2028", ""])
JSON: Any = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12) | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=6,
)
DEPTH = st.integers(60, 3000)
BYTE_EDITS = st.lists(st.tuples(st.sampled_from(["flip", "insert", "cut"]),
                                st.integers(0, 10**9), st.integers(0, 255)),
                      min_size=1, max_size=5)


def limit_memory(mib: int) -> None:
    """Cap this process's address space at what it uses now plus ``mib`` MiB."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[0])
    now = pages * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (now + mib * 2**20, resource.RLIM_INFINITY))


def edit_bytes(data: bytes, edits: list[tuple[str, int, int]]) -> bytes:
    out = bytearray(data)
    for kind, position, value in edits:
        at = position % (len(out) + 1)
        if kind == "flip" and out:
            out[at % len(out)] = value
        elif kind == "insert":
            out[at:at] = bytes([value]) * (1 + position % 64)
        else:
            del out[at:at + 1 + position % 256]
    return bytes(out)



def replace_value(data: Any, pick: int, value: Any) -> Any:
    """``data`` with the value at one path (chosen by ``pick``) replaced by ``value``."""
    paths = json_paths(data)
    where = paths[pick % len(paths)]
    if not where:
        return value
    target = data
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    return data


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def hostile_json(data: Any, pick: int, value: Any, depth: int | None) -> str:
    """``data`` as JSON text with one value replaced, or nested ``depth`` levels deep there."""
    marker = "\ue000marker\ue000"
    text = json.dumps(replace_value(data, pick, marker if depth else value))
    return text.replace(json.dumps(marker), nested(depth)) if depth else text


def one_line(message: str) -> None:
    assert "\n" not in message.strip(), message[:300]


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the targets -------------------------------------------------------------------------

def fuzz_case_importer(work: Path) -> None:
    from annotator.ingest.reader import read_case_sources

    draft_files = _load("draft_files", TESTS / "ingest" / "draft_files.py")
    good = draft_files.write_case_file(work, draft_files.make_case("good"), name="a-good.json")
    seed = draft_files.make_case("fuzzed")
    seed_text = json.dumps(seed).encode()
    bad = work / "b-bad.json"

    def check() -> None:
        result = read_case_sources([good, bad], seed="fuzz")
        assert "good" in [c.case_id for c in result.accepted]
        for rejection in result.rejected:
            one_line(rejection.reason)

    @FUZZ
    @given(edits=BYTE_EDITS)
    def bytes_edited(edits: list[tuple[str, int, int]]) -> None:
        bad.write_bytes(edit_bytes(seed_text, edits))
        check()

    @FUZZ
    @given(pick=st.integers(0, 10**6), value=JSON, depth=st.none() | DEPTH)
    def value_replaced(pick: int, value: Any, depth: int | None) -> None:
        bad.write_text(hostile_json(json.loads(seed_text), pick, value, depth), "utf-8",
                       errors="surrogatepass")
        check()

    bytes_edited()
    value_replaced()


def _zip_targets(work: Path, kind: str) -> None:
    from annotator.errors import AnnotatorError
    from annotator.services.sync.bundle import read_bundle
    from annotator.services.sync.package import read_package
    from annotator.sync.container import manifest_checksum

    seed = TESTS / "sync" / "fixtures" / (
        "bundle-v1.annotator-bundle" if kind == "bundle" else "package-v1.annotator-package")
    reader: Callable[[Path], Any] = read_bundle if kind == "bundle" else read_package
    path = work / f"fuzzed.{kind}"

    def check() -> None:
        try:
            result = reader(path)
            if kind == "bundle":
                for sha in result[2]:
                    result[2][sha]
        except AnnotatorError as exc:
            one_line(str(exc))

    @FUZZ
    @given(edits=BYTE_EDITS)
    def bytes_edited(edits: list[tuple[str, int, int]]) -> None:
        path.write_bytes(edit_bytes(seed.read_bytes(), edits))
        check()

    @FUZZ
    @given(member=st.sampled_from(["manifest.json", "content.json"]),
           pick=st.integers(0, 10**6), value=JSON, depth=st.none() | DEPTH)
    def value_replaced(member: str, pick: int, value: Any, depth: int | None) -> None:
        with zipfile.ZipFile(seed) as archive:
            members = {n: archive.read(n) for n in archive.namelist()}
        text = hostile_json(json.loads(members[member]), pick, value, depth)
        members[member] = text.encode("utf-8", "surrogatepass")
        if member == "content.json":  # resealed, so the deeper checks meet it
            head = json.loads(members["manifest.json"])
            entry = next(e for e in head["files"] if e["path"] == "content.json")
            entry.update(sha256=hashlib.sha256(members[member]).hexdigest(),
                         size=len(members[member]))
            head["checksum"] = manifest_checksum(head)
            members["manifest.json"] = json.dumps(head).encode()
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
        check()

    bytes_edited()
    value_replaced()


def fuzz_bundle(work: Path) -> None:
    _zip_targets(work, "bundle")


def fuzz_package(work: Path) -> None:
    _zip_targets(work, "package")


def fuzz_sme_yaml(work: Path) -> None:
    import yaml

    from annotator.sme.lint import lint

    specs = _load("sme_specs", TESTS / "sme" / "specs.py")
    good = work / "a-good.yaml"
    good.write_text(specs.ANEG1, "utf-8")
    seed = yaml.safe_dump(specs.benchmark()).encode()
    bad = work / "b-bad.yaml"

    def check() -> None:
        result = lint([good, bad])
        assert "A-NEG1" in [b.code for b, _ in result.benchmarks]
        for problem in result.problems:
            one_line(str(problem))

    @FUZZ
    @given(edits=BYTE_EDITS)
    def bytes_edited(edits: list[tuple[str, int, int]]) -> None:
        bad.write_bytes(edit_bytes(seed, edits))
        check()

    @FUZZ
    @given(pick=st.integers(0, 10**6), value=JSON, depth=st.none() | DEPTH)
    def value_replaced(pick: int, value: Any, depth: int | None) -> None:
        # JSON is YAML: the same hostile values, and flow-style nesting.
        bad.write_text(hostile_json(specs.benchmark(), pick, value, depth), "utf-8",
                       errors="surrogatepass")
        check()

    bytes_edited()
    value_replaced()


def fuzz_sme_items(work: Path) -> None:
    from annotator.sme.items import read_items

    item = {"item_id": "good", "benchmark": "A-NEG2", "input": "x", "ground_truth": {"a": 1},
            "output": {"a": 0}, "system": "s"}
    good = work / "a-good.jsonl"
    good.write_text(json.dumps(item) + "\n", "utf-8")
    seed = {"items": [{**item, "item_id": "fuzzed"}]}
    bad = work / "b-bad.json"

    def check() -> None:
        read = read_items([good, bad])
        assert "good" in [i.item_id for i, _, _ in read.items]
        for problem in read.problems:
            one_line(str(problem))

    @FUZZ
    @given(edits=BYTE_EDITS)
    def bytes_edited(edits: list[tuple[str, int, int]]) -> None:
        bad.write_bytes(edit_bytes(json.dumps(seed).encode(), edits))
        check()

    @FUZZ
    @given(pick=st.integers(0, 10**6), value=JSON, depth=st.none() | DEPTH)
    def value_replaced(pick: int, value: Any, depth: int | None) -> None:
        bad.write_text(hostile_json(json.loads(json.dumps(seed)), pick, value, depth), "utf-8",
                       errors="surrogatepass")
        check()

    bytes_edited()
    value_replaced()


def fuzz_judged_run(work: Path) -> None:
    from annotator.errors import AnnotatorError
    from annotator.judging.runfile import load_run
    from annotator.resources import judged_runs_dir

    seed = json.loads(sorted(judged_runs_dir().glob("*.benchmark_full.json"))[0].read_text())
    seed["case_results"] = seed["case_results"][:2]  # small: the shape, not the volume
    path = work / "fuzzed.benchmark_full.json"

    def check() -> None:
        try:
            load_run(path)
        except AnnotatorError as exc:
            one_line(str(exc))

    @FUZZ
    @given(edits=BYTE_EDITS)
    def bytes_edited(edits: list[tuple[str, int, int]]) -> None:
        path.write_bytes(edit_bytes(json.dumps(seed).encode(), edits))
        check()

    @FUZZ
    @given(pick=st.integers(0, 10**6), value=JSON, depth=st.none() | DEPTH)
    def value_replaced(pick: int, value: Any, depth: int | None) -> None:
        path.write_text(hostile_json(json.loads(json.dumps(seed)), pick, value, depth),
                        "utf-8", errors="surrogatepass")
        check()

    bytes_edited()
    value_replaced()


def fuzz_physician_csv(work: Path) -> None:
    from annotator.errors import AnnotatorError
    from annotator.services.judging.sheets import COLUMNS, read_rows

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    writer.writerow(["a1", "agent-alpha", "case-1", "trajectory", "Glioma", "2", "E"])
    seed = buffer.getvalue().encode()
    path = work / "scores.csv"

    @FUZZ
    @given(edits=BYTE_EDITS, cell=st.none() | HOSTILE_TEXT)
    def bytes_edited(edits: list[tuple[str, int, int]], cell: str | None) -> None:
        data = seed if cell is None else seed.replace(b"Glioma",
                                                      cell.encode("utf-8", "surrogatepass"))
        path.write_bytes(edit_bytes(data, edits))
        try:
            rows = read_rows(path)
        except AnnotatorError as exc:
            one_line(str(exc))
            return
        assert all(isinstance(r, dict) for r in rows)

    bytes_edited()


def fuzz_validate(work: Path) -> None:
    from annotator.export.validate import validate_release

    seed = json.loads((TESTS / "export" / "fixtures" / "release.json").read_text("utf-8"))
    folder = work / "release"

    def check(text: bytes) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        (folder / "release.json").write_bytes(text)
        (folder / "croissant.json").write_bytes(text[: len(text) // 3])
        problems = validate_release(folder)
        assert problems and all(isinstance(p, str) for p in problems)
        for problem in problems:
            one_line(problem)

    @FUZZ
    @given(edits=BYTE_EDITS)
    def bytes_edited(edits: list[tuple[str, int, int]]) -> None:
        check(edit_bytes(json.dumps(seed).encode(), edits))

    @FUZZ
    @given(pick=st.integers(0, 10**6), value=JSON, depth=st.none() | DEPTH)
    def value_replaced(pick: int, value: Any, depth: int | None) -> None:
        text = hostile_json(json.loads(json.dumps(seed)), pick, value, depth)
        check(text.encode("utf-8", "surrogatepass"))

    bytes_edited()
    value_replaced()


TARGETS: dict[str, Callable[[Path], None]] = {
    "case_importer": fuzz_case_importer,
    "bundle": fuzz_bundle,
    "package": fuzz_package,
    "sme_yaml": fuzz_sme_yaml,
    "sme_items": fuzz_sme_items,
    "judged_run": fuzz_judged_run,
    "physician_csv": fuzz_physician_csv,
    "validate": fuzz_validate,
}


# Imported before the cap, so the cap measures what the examples use, not the libraries.
PRELOAD = ("annotator.ingest.reader", "annotator.services.sync.bundle",
           "annotator.services.sync.package", "annotator.sme.lint", "annotator.sme.items",
           "annotator.judging.runfile", "annotator.services.judging.sheets",
           "annotator.export.validate", "yaml", "numpy", "PIL.Image", "pydicom")


if __name__ == "__main__":
    for module in PRELOAD:
        importlib.import_module(module)
    limit_memory(int(sys.argv[2]))
    with tempfile.TemporaryDirectory() as tmp:
        TARGETS[sys.argv[1]](Path(tmp))
    print("fuzzed", sys.argv[1])
