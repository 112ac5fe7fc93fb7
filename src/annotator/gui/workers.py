"""Slow work off the GUI thread through one helper (style-by-example, practice 5).

``run_in_background(fn, on_done, on_error)`` runs a plain function on Qt's global thread
pool and delivers its result back on the GUI thread. Workers never touch widgets; a result
that arrives after its receiver was destroyed is dropped.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from shiboken6 import isValid


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


def _receiver_gone(callback: Callable[..., Any] | None) -> bool:
    """True when ``callback`` is a method of a widget that was destroyed meanwhile (a page
    rebuilt in a new theme, or dropped when the user switched)."""
    owner = getattr(callback, "__self__", None)
    return isinstance(owner, QObject) and not isValid(owner)


def run_in_background(
    fn: Callable[[], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None] | None = None,
    *,
    pool: QThreadPool | None = None,
) -> None:
    """Run ``fn()`` on a worker thread; call ``on_done(result)`` on the GUI thread."""
    relay = _Relay()
    _alive.add(relay)

    def finish(result: Any) -> None:
        _alive.discard(relay)
        if not _receiver_gone(on_done):
            on_done(result)

    def fail(exc: BaseException) -> None:
        _alive.discard(relay)
        if on_error is not None and not _receiver_gone(on_error):
            on_error(exc)

    relay.done.connect(finish)
    relay.failed.connect(fail)
    (pool or QThreadPool.globalInstance()).start(_Task(fn, relay))
