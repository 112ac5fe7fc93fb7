"""Slow work off the GUI thread through one helper (style-by-example, practice 5).

``run_in_background(fn, on_done, on_error)`` runs a plain function on Qt's global thread
pool and delivers its result back on the GUI thread. Workers never touch widgets; a result
that arrives after its receiver was destroyed is dropped.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal
from shiboken6 import isValid

from annotator.gui.collect import collect_soon

# The longest a worker running Python keeps the GIL once the GUI thread asks for it (the
# interpreter's default is 5 ms): a read ahead decoding rows made a click wait that long.
# The bench's longest GUI-thread turns on a team store, six runs each: 18-25 ms at 5 ms,
# 16-22 ms at 1 ms.
GIL_SWITCH_S = 0.001


def prefer_the_gui_thread() -> None:
    """Hand the GIL back to a waiting thread after :data:`GIL_SWITCH_S` (at start-up)."""
    sys.setswitchinterval(GIL_SWITCH_S)


class _Relay(QObject):
    """Lives on the GUI thread; queued signals carry results back to it."""

    done = Signal(object)
    """Emitted on the GUI thread with the function's return value."""
    failed = Signal(object)
    """Emitted on the GUI thread with the exception the function raised."""


class _Task(QRunnable):
    def __init__(self, fn: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.fn = fn
        self.relay = relay

    def run(self) -> None:
        try:
            try:
                result = self.fn()
            except Exception as exc:  # delivered to the GUI, never lost in a thread
                exc.__traceback_text__ = traceback.format_exc()  # type: ignore[attr-defined]
                self.relay.failed.emit(exc)
            else:
                self.relay.done.emit(result)
        except RuntimeError:
            pass  # the application is shutting down and the relay is gone: drop the result


_alive: set[_Relay] = set()


def _held_qt_objects(callback: Callable[..., Any] | None) -> list[QObject]:
    """The Qt objects a callback reaches: a bound method's ``self``, and the Qt objects (or
    Qt objects' bound methods) in a closure's cells, as in ``def loaded(...): self.x...``."""
    found: list[QObject] = []
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, QObject):
        found.append(owner)
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        value = getattr(value, "__self__", value)
        if isinstance(value, QObject):
            found.append(value)
    return found


def _receiver_gone(callback: Callable[..., Any] | None) -> bool:
    """True when a Qt object the callback holds was destroyed meanwhile (a page rebuilt in a
    new theme, or dropped when the user switched): delivering would touch deleted widgets."""
    return any(not isValid(obj) for obj in _held_qt_objects(callback))


def run_in_background(
    fn: Callable[[], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None] | None = None,
    *,
    pool: QThreadPool | None = None,
) -> None:
    """Run ``fn()`` on a worker thread; call ``on_done(result)`` on the GUI thread."""
    # Owned by the application (Qt, GUI thread) so that only ``deleteLater`` below, on the GUI
    # thread, ever destroys it, whichever thread drops its last Python reference.
    relay = _Relay(QCoreApplication.instance())
    _alive.add(relay)

    def release() -> None:
        # Deleting the relay (on the GUI thread) drops its connections, which breaks the
        # relay <-> closure cycle: the callbacks (and the page they hold) are then freed by
        # reference counting here, not by a cycle collection that may run on a worker thread.
        # Not ``signal.disconnect``: PySide6 6.12's steals a reference to True each call,
        # and the interpreter aborts ("bool_dealloc") once True's count runs out.
        _alive.discard(relay)
        relay.deleteLater()

    def finish(result: Any) -> None:
        release()
        if _receiver_gone(on_done):  # the dropped page it holds: collected on this thread
            relay.destroyed.connect(collect_soon)  # once the relay lets go of it
        else:
            on_done(result)

    def fail(exc: BaseException) -> None:
        release()
        if on_error is None:
            return
        if _receiver_gone(on_error):
            relay.destroyed.connect(collect_soon)
        else:
            on_error(exc)

    relay.done.connect(finish)
    relay.failed.connect(fail)
    (pool or QThreadPool.globalInstance()).start(_Task(fn, relay))
