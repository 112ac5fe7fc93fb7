"""The core/GUI boundary, guarded by a machine (style-by-example, practice 1)."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import grimp

import annotator

CORE_MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(annotator.__path__, "annotator.")
    if not m.name.startswith("annotator.gui")
    and ".migrations" not in m.name
    and m.name != "annotator.__main__"
)


def test_core_modules_exist() -> None:
    assert {"annotator.cli", "annotator.store.schema", "annotator.services.annotating"} <= set(
        CORE_MODULES
    )


def test_core_imports_without_qt() -> None:
    """Import every core module in a process where PySide6 cannot be imported at all."""
    code = (
        "import sys, importlib\n"
        "sys.modules['PySide6'] = None\n"  # any 'import PySide6...' now raises ImportError
        f"for name in {CORE_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "assert not any(m.startswith('PySide6') and sys.modules[m] is not None "
        "for m in sys.modules)\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_cli_entry_points() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "annotator", "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"annotator {annotator.__version__}"


def _core_files() -> list[Path]:
    root = Path(annotator.__file__).parent
    return [
        p for p in sorted(root.rglob("*.py"))
        if "gui" not in p.relative_to(root).parts[:1] and "migrations" not in p.parts
    ]


def test_no_import_cycles() -> None:
    """No module imports itself back through others, imports under TYPE_CHECKING included.

    A cycle made only for type hints still ties two modules into one unit; a Protocol
    naming what one needs from the other breaks it (e.g. ``gui/roundtrip/host.py``).
    """
    graph = grimp.build_graph("annotator", exclude_type_checking_imports=False)
    cycles = [
        (m, chain)
        for m in sorted(graph.modules)
        for imported in graph.find_modules_directly_imported_by(m)
        if (chain := graph.find_shortest_chain(importer=imported, imported=m))
    ]
    assert cycles == []


# The one function-level import of the core: `annotator gui` loads Qt only when it starts.
LAZY_IMPORTS = {("cli/gui.py", "annotator.gui.app")}


def test_core_imports_at_module_level() -> None:
    """No import inside a function (they hid cycles); the layers contract sees every import."""
    root = Path(annotator.__file__).parent
    found = set()
    for path in _core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and node.module:
                    found.add((path.relative_to(root).as_posix(), node.module))
                elif isinstance(node, ast.Import):
                    found |= {(path.relative_to(root).as_posix(), a.name) for a in node.names}
    assert {f for f in found if f[1].startswith("annotator")} == LAZY_IMPORTS


def test_architecture_doc_shows_the_contract() -> None:
    """The layers diagram in docs/architecture.md matches the contract in pyproject.toml."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "layers-diagram.py"
    result = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_every_shortcut_goes_through_the_action_registry() -> None:
    """No QShortcut outside ``gui/actions.py``: F1, rebinding and clash checks see every key."""
    gui = Path(annotator.__file__).parent / "gui"
    found = []
    for path in sorted(gui.rglob("*.py")):
        if path.name == "actions.py" and path.parent == gui:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = (
                node.id if isinstance(node, ast.Name)
                else node.attr if isinstance(node, ast.Attribute)
                else next((a.name for a in node.names if a.name == "QShortcut"), "")
                if isinstance(node, ast.ImportFrom)
                else ""
            )
            if name == "QShortcut":
                found.append(f"{path.relative_to(gui).as_posix()}:{node.lineno}")
    assert found == []
