"""Start-up runs without automatic collections until the window's first turn (gui/collect.py):
it makes the app's long-lived objects, which the collector only walked again and again."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import gc
from annotator.gui import collect
collect.pause_for_start()
assert not gc.isenabled(), "start-up collects"
from PySide6.QtWidgets import QApplication
from annotator.gui.context import GuiContext
from annotator.gui.main_window import MainWindow
app = QApplication([])
window = MainWindow(GuiContext(None, None), remember=False)
assert not gc.isenabled(), "collections resumed before the window's first turn"
app.processEvents()
assert gc.isenabled(), "collections never resumed"
assert gc.get_freeze_count() > 0, "start-up's objects left in the collector's sight"
collect.pause_for_start()
assert gc.isenabled(), "paused again after start-up"
print("ok")
"""


def test_start_up_pauses_collections_until_the_first_turn() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")
