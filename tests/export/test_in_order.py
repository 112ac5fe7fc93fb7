"""The export ships cases' images on threads, taken in the cases' order."""

from __future__ import annotations

import threading

import pytest

from annotator.export.in_order import in_order


def test_results_come_in_the_items_order_whichever_thread_finishes_first() -> None:
    second_done = threading.Event()
    finished: list[int] = []

    def first_waits_for_second(n: int) -> int:
        if n == 0:
            assert second_done.wait(10)
        finished.append(n)
        if n == 1:
            second_done.set()
        return n * n

    assert list(in_order(first_waits_for_second, range(20), threads=2)) == [
        (n, n * n) for n in range(20)]
    # Item 0 really finished after item 1 (others may finish in between on a busy machine).
    assert finished.index(1) < finished.index(0)


def test_the_work_runs_on_worker_threads() -> None:
    names = [name for _, name in in_order(lambda _n: threading.current_thread().name,
                                          range(8), threads=2, name="export-case")]
    assert all(name.startswith("export-case") for name in names)


def test_an_exception_is_raised_at_its_items_turn() -> None:
    def fails_at_three(n: int) -> int:
        if n == 3:
            raise ValueError("item 3")
        return n

    seen = []
    with pytest.raises(ValueError, match="item 3"):
        for n, _ in in_order(fails_at_three, range(10), threads=2):
            seen.append(n)
    assert seen == [0, 1, 2]


def test_stopping_early_leaves_the_rest_unstarted() -> None:
    started: list[int] = []
    results = in_order(lambda n: started.append(n) or n, range(1000), threads=2)
    assert next(results) == (0, 0)
    results.close()
    assert len(started) <= 8  # the few in flight, never the thousand


def test_one_thread_is_a_plain_loop() -> None:
    names = {name for _, name in in_order(lambda _n: threading.current_thread().name,
                                          range(3), threads=1)}
    assert names == {threading.current_thread().name}
