"""Reading benchmark YAML with the line of every key (for ``file:line`` messages).

``yaml.compose`` gives the node tree with marks; the values themselves come from
``yaml.safe_load`` of the same text, so both walk the same structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 2_000_000
MAX_NODES = 100_000  # counted with aliases expanded: refuses "billion laughs" files
SUFFIXES = (".yaml", ".yml")


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
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
        else:
            out.append(path)
    return out


def _expanded_size(node: yaml.Node, limit: int) -> int:
    """Nodes in the tree with every alias expanded, counting stops just past ``limit``."""
    count, stack = 0, [node]
    while stack and count <= limit:
        current = stack.pop()
        count += 1
        if isinstance(current, yaml.MappingNode):
            stack.extend(n for pair in current.value for n in pair)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return count


def _key_lines(node: yaml.Node, prefix: str, out: dict[str, int]) -> None:
    if not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        key = f"{prefix}{key_node.value}"
        out[key] = key_node.start_mark.line + 1
        _key_lines(value_node, key + ".", out)


def read_documents(path: Path) -> list[Document]:
    """The benchmark mappings of one file (a mapping or a list); YamlProblem if unreadable."""
    name = str(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise YamlProblem(name, 1, f"larger than {MAX_BYTES} bytes", "E-READ")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise YamlProblem(name, 1, f"cannot read: {exc.strerror or exc}", "E-READ") from None
    except UnicodeDecodeError:
        raise YamlProblem(name, 1, "not UTF-8 text", "E-READ") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is not None and _expanded_size(root, MAX_NODES) > MAX_NODES:
            raise YamlProblem(name, 1, f"more than {MAX_NODES} values once aliases are expanded")
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlProblem(name, line, f"not valid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise YamlProblem(name, 1, f"not valid YAML: {exc}") from None
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
