"""A separate app process for the crash-safety test: edits through the real page forever.

Usage: ``python edit_forever.py PROJECT USER CASE``. Every edit goes through the page's
actions or a text field's autosave, exactly as a physician's would; after the store has
committed an edit the process prints ``ack [key, value]`` and flushes stdout. The test
kills it with SIGKILL at an arbitrary moment.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(project_dir: str, user: str, case_id: str) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow
    from annotator.store.project import open_project

    app = QApplication(sys.argv[:1])
    project = open_project(project_dir, create=False, backup=False)
    window = MainWindow(GuiContext(project, user, case_id=case_id))
    window.show()
    page: Any = window.page("annotate")
    session = page.session
    committed = session.store

    def store(case: str, edits: list[Any], text: str) -> Any:
        result = committed(case, edits, text)  # returns once the transaction committed
        for edit in edits:
            print("ack", json.dumps([edit.key, edit.value]), flush=True)
        return result

    session.store = store
    actions = window.registry.actions
    values = itertools.cycle(("essential", "optional", "unnecessary"))
    counter = itertools.count()

    def next_edit() -> None:
        n = next(counter)
        if n % 2:
            actions[f"annotate.importance.{next(values)}"].trigger()
        else:
            page.labels_panel.comment.setPlainText(f"note {n}")  # as if typed...
            session.flush()  # ...and the pause elapsed
        QTimer.singleShot(0, next_edit)

    QTimer.singleShot(0, next_edit)
    app.exec()


if __name__ == "__main__":
    main(*sys.argv[1:4])
