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
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

_pending = False
_settled = False


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


def settle() -> None:
    """Once per process, after start-up: keep what exists now out of later collections."""
    global _settled
    if not _settled:
        _settled = True
        gc.freeze()
