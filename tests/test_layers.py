"""The core/GUI boundary, guarded by a machine (style-by-example, practice 1)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

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
