"""The long-work helper (``annotator.tasks``): progress out, cancel in, result or error kept."""

from __future__ import annotations

import threading

import pytest

from annotator.errors import AnnotatorError
from annotator.tasks import Cancelled, TaskState, run_task


def test_progress_is_clamped_and_heard() -> None:
    heard: list[tuple[float, str]] = []
    state = TaskState(lambda f, m: heard.append((f, m)))
    state.progress(0.25, "reading")
    state.progress(1.5)  # no message: the last one stays
    state.progress(-1, "back")
    assert heard == [(0.25, "reading"), (1.0, "reading"), (0.0, "back")]


def test_a_stage_maps_its_progress_into_the_whole() -> None:
    heard: list[float] = []
    state = TaskState(lambda f, _m: heard.append(f))
    stage = state.part(0.2, 0.6)
    stage.progress(0.5, "half of the stage")
    assert heard == [pytest.approx(0.4)] and state.message == "half of the stage"
    state.cancel()
    assert stage.cancelled  # one cancel for the whole work
    with pytest.raises(Cancelled):
        stage.check()


def test_check_raises_only_after_cancel_and_carries_the_partial_result() -> None:
    state = TaskState()
    state.progress(0.5, "3 case(s) stored")
    state.check()
    threading.Thread(target=state.cancel).start()  # cancel may come from any thread
    state._cancel.wait(5)
    with pytest.raises(Cancelled, match="cancelled after 3 case") as caught:
        state.check(partial=["C1", "C2", "C3"])
    assert caught.value.partial == ["C1", "C2", "C3"]
    assert isinstance(caught.value, AnnotatorError)  # a one-line refusal on every front end


def test_run_task_keeps_the_result_or_the_error() -> None:
    state = TaskState()
    assert run_task(lambda s: 42, state) == 42 and state.result == 42
    failing = TaskState()
    with pytest.raises(ValueError):
        run_task(lambda s: int("x"), failing)
    assert isinstance(failing.error, ValueError) and failing.result is None
