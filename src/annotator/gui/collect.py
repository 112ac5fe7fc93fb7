"""Python's cycle collector for dropped Qt objects, run on the GUI thread.

A page's Python wrapper sits in reference cycles (its signal lambdas hold ``self``), so it is
freed by the cycle collector, not by reference counting. Left to the automatic collector,
that happens on whichever thread allocates at the time, often a worker, and the page's
Python-owned Qt objects (models, timers, undo stacks) are then destroyed off their thread:
the rare segmentation fault of CI. So whoever drops Qt objects calls :func:`collect_soon`:
automatic collection pauses, and one full collection runs on the GUI thread at the next
turn of its event loop (after ``deleteLater`` has deleted the C++ side).

What start-up made (modules, mappers, the first page) lives as long as the app: :func:`settle`
moves it out of the collector's sight once, so that the automatic collections after it do
not walk it again (the first full one blocked the GUI thread ~50 ms at the first case
switch, and grows with the project's objects). A collection for dropped objects unfreezes
first, so nothing dropped is ever kept, and freezes what survived again.

Start-up itself runs without automatic collections (:func:`pause_for_start`, until
:func:`settle`): it makes the app's long-lived objects, and the collector walked them ~330
times before the first case was shown (two full passes, 10 and 25-29 ms), freeing nothing:
~75 ms of the time to the first case.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

_pending = False
_settled = False
_paused = False


def collect_soon() -> None:
    """Collect on the GUI thread at the next event loop turn; none elsewhere until then."""
    global _pending
    if not _pending:
        _pending = True
        gc.disable()
        QTimer.singleShot(0, _collect)


def _collect() -> None:
    global _pending
    _pending = False
    gc.unfreeze()
    gc.collect()
    if _settled:  # what survived lives on: out of the automatic collections' way again
        gc.freeze()
    gc.enable()


def pause_for_start() -> None:
    """Before start-up's imports: no automatic collection until :func:`settle`."""
    global _paused
    if not _settled and not _paused and gc.isenabled():
        _paused = True
        gc.disable()


def settle() -> None:
    """Once per process, after start-up: keep what exists now out of later collections
    (and collect automatically again, if start-up paused it)."""
    global _settled, _paused
    if not _settled:
        _settled = True
        gc.freeze()
        if _paused and not _pending:  # a pending collection enables it when it has run
            gc.enable()
        _paused = False
