"""Reading benchmark YAML with the line of every key (for ``file:line`` messages).

``yaml.compose`` gives the node tree with marks; the values themselves come from
``yaml.safe_load`` of the same text, so both walk the same structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from annotator.inputfiles import MAX_JSON_DEPTH, TooDeep, files_named, read_regular

MAX_BYTES = 2_000_000
MAX_NODES = 100_000  # counted with aliases expanded: refuses "billion laughs" files
SUFFIXES = (".yaml", ".yml")
# libyaml's loader when PyYAML was built with it: the pure-Python scanner is ~10x slower.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Document:
    """One benchmark mapping of a file: its data, its first line and each key's line.

    ``lines`` maps dotted keys (``weight``, ``scoring_scale.min_value``,
    ``scoring_scale.descriptions.0.9``) to 1-based line numbers.
    """

    file: str
    line: int
    data: Any
    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, key: str) -> int:
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key.rpartition(".")[0]
        return self.line


class YamlProblem(ValueError):
    """A file that gives no benchmarks: ``E-READ`` if its text cannot be read, else ``E-YAML``."""

    def __init__(self, file: str, line: int, reason: str, code: str = "E-YAML") -> None:
        super().__init__(f"{file}:{line}: {reason}")
        self.file, self.line, self.reason, self.code = file, line, reason, code


def expand(paths: list[Path]) -> list[Path]:
    """Files named, and the YAML files of folders named (recursively), in a stable order."""
    return files_named(paths, SUFFIXES)


def _expanded_size(node: yaml.Node, limit: int) -> tuple[int, int]:
    """Nodes in the tree with every alias expanded (counting stops just past ``limit``), and
    how deep collections nest."""
    count, deepest, stack = 0, 0, [(node, 0)]
    while stack and count <= limit:
        current, level = stack.pop()
        count += 1
        children: list[yaml.Node] = []
        if isinstance(current, yaml.MappingNode):
            children = [n for pair in current.value for n in pair]
        elif isinstance(current, yaml.SequenceNode):
            children = current.value
        else:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_JSON_DEPTH:
            break
        stack.extend((child, level + 1) for child in children)
    return count, deepest


def _key_lines(node: yaml.Node, prefix: str, out: dict[str, int]) -> None:
    if not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        key = f"{prefix}{key_node.value}"
        out[key] = key_node.start_mark.line + 1
        _key_lines(value_node, key + ".", out)


def _first_line(reason: object) -> str:
    # PyYAML's messages go on with an indented "in <string>, position N" line.
    return (str(reason).strip().splitlines() or [""])[0]


def read_documents(path: Path) -> list[Document]:
    """The benchmark mappings of one file (a mapping or a list); YamlProblem if unreadable."""
    name = str(path)
    try:  # a regular file only: a FIFO would block
        text = read_regular(path, MAX_BYTES).decode("utf-8")
    except OSError as exc:
        raise YamlProblem(name, 1, f"cannot read: {exc.strerror or exc}", "E-READ") from None
    except UnicodeDecodeError:
        raise YamlProblem(name, 1, "not UTF-8 text", "E-READ") from None
    except ValueError as exc:  # a NUL byte in the path
        raise YamlProblem(name, 1, f"cannot read: {exc}", "E-READ") from None
    try:
        root = yaml.compose(text, Loader=_LOADER)
        if root is not None:
            count, deepest = _expanded_size(root, MAX_NODES)
            if count > MAX_NODES:
                raise YamlProblem(name, 1, f"more than {MAX_NODES} values once aliases are"
                                           " expanded")
            if deepest > MAX_JSON_DEPTH:
                raise YamlProblem(name, 1, str(TooDeep()))
        data = yaml.load(text, Loader=_LOADER)  # noqa: S506  (a safe loader)
    except RecursionError:  # the composer recurses per level, before any check can run
        raise YamlProblem(name, 1, str(TooDeep())) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlProblem(name, line, f"not valid YAML: {_first_line(exc.problem or exc)}"
                          ) from None
    except yaml.YAMLError as exc:  # ReaderError: a character YAML does not allow
        raise YamlProblem(name, 1, f"not valid YAML: {_first_line(exc)}") from None
    if root is None:
        raise YamlProblem(name, 1, "the file is empty")
    if isinstance(root, yaml.SequenceNode) and isinstance(data, list):
        pairs = list(zip(root.value, data, strict=True))
    else:
        pairs = [(root, data)]
    docs = []
    for node, value in pairs:
        doc = Document(name, node.start_mark.line + 1, value)
        _key_lines(node, "", doc.lines)
        docs.append(doc)
    return docs
