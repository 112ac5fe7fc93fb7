"""PySide6's per-module check, made cheap by ``annotator.gui`` (gui/qt_startup.py), gives
PySide6's own answer."""

from __future__ import annotations

import inspect
import json
import sys

import annotator.domain.states
import annotator.gui
import annotator.gui.main_window


def _by_source(module: object) -> bool:  # the question as PySide6 asks it
    try:
        return "PySide6" in inspect.getsource(module)  # type: ignore[arg-type]
    except (TypeError, OSError):
        return False


def test_the_check_is_the_quick_one_and_answers_as_pyside_does() -> None:
    assert annotator.gui  # imported first: it installs the check
    check = sys.modules["shibokensupport.feature"]._mod_uses_pyside
    assert getattr(check, "quick", False)
    modules = [annotator.gui.main_window, annotator.domain.states, json, sys, inspect]
    assert [check(m) for m in modules] == [_by_source(m) for m in modules]
    assert check(annotator.gui.main_window) and not check(annotator.domain.states)
