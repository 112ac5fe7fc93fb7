"""PySide6's import hook made cheap, before the first PySide6 module loads.

PySide6 asks of every module imported after it whether its source names "PySide6" (to know
which modules may switch ``from __feature__ import`` features on, PYSIDE-2029), and asks it
through ``inspect.getsource``: 128 ms over the app's 618 modules at start-up, on the GUI
thread. The same question asked of the file's bytes takes 12 ms. Modules without a source
file get PySide6's own answer.
"""

from __future__ import annotations

import sys
from types import ModuleType


def quicken_pyside_imports() -> None:
    import shiboken6  # noqa: F401  (loads PySide6's support package, not Qt)

    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or original is None or getattr(original, "quick", False):
        return  # another PySide6 (nothing to change), or changed already

    def uses_pyside(module: ModuleType) -> bool:
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.endswith(".py"):
            try:
                with open(file, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return bool(original(module))

    uses_pyside.quick = True  # type: ignore[attr-defined]
    feature._mod_uses_pyside = uses_pyside  # type: ignore[attr-defined]
