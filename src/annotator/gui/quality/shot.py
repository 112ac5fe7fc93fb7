"""Render the Quality view of a project to a PNG (docs/screenshots/quality.png):
``python -m annotator.gui.quality.shot PROJECT OUT.png [--as CURATOR] [--size WxH]``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from annotator.gui import theme
from annotator.gui.quality.view import QualityView
from annotator.services.quality import snapshot
from annotator.store.project import open_project


def render(view: QualityView, out: Path, width: int, height: int) -> Path:
    """Lay the view out at ``width`` x ``height`` and save what it shows."""
    view.resize(width, height)
    view.show()
    QApplication.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not view.grab().save(str(out)):
        raise OSError(f"could not write {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m annotator.gui.quality.shot")
    parser.add_argument("project")
    parser.add_argument("out", type=Path)
    parser.add_argument("--as", dest="actor", default="Sam Curator")
    parser.add_argument("--size", default="1366x768")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.apply(app, "light", 1.0)  # type: ignore[arg-type]
    project = open_project(args.project)
    try:
        view = QualityView(snapshot(project, args.actor))
        print(render(view, args.out, width, height))
    finally:
        project.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
