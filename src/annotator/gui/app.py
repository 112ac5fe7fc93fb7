"""Starting the desktop app (and the offscreen screenshot mode used by docs and tests)."""

from __future__ import annotations

import argparse
import os
import sys


def run_gui(args: argparse.Namespace) -> int:
    """Open the main window on the project; with --screenshot, render to PNG and exit."""
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow
    from annotator.services.project import open_project
    from annotator.services.users import resolve_actor

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("annotator")
    app.setOrganizationName("annotator")
    project = open_project(args.project) if args.project else None
    requested = args.as_user or os.environ.get("ANNOTATOR_USER")
    user = resolve_actor(project, requested) if project is not None else requested
    window = MainWindow(GuiContext(project, user, case_id=args.case))
    width, _, height = (args.size or "1600x1000").partition("x")
    window.resize(int(width), int(height))
    if args.page:
        window.show_page(args.page)
    if args.screenshot:
        window.show()
        app.processEvents()
        ok = window.grab().save(args.screenshot, "PNG")
        window.close()
        if not ok:
            print(f"annotator: error: could not write {args.screenshot}", file=sys.stderr)
            return 2
        return 0
    window.show()
    return int(app.exec())
