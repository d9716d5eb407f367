"""bench.http_load.alternated: c=1 and c=16 taken in turns, each figure the median of its
rounds, the ratio each round's own (wrk replaced by scripted answers)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from bench import http_load
from bench.http_load import Load, alternated


def test_medians_and_ratios_by_round(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three rounds on a machine whose speed drifts: the second round is twice as slow.
    answers = iter(
        [
            Load(1, 200, 4.0, 12.0),
            Load(16, 320, 40.0, 70.0),
            Load(1, 100, 8.0, 24.0),
            Load(16, 190, 80.0, 140.0),
            Load(1, 210, 3.8, 11.0),
            Load(16, 300, 42.0, 66.0),
        ]
    )
    asked: list[int] = []

    def scripted(port: int, queries: list[str], concurrency: int, seconds: int) -> Load:
        asked.append(concurrency)
        return next(answers)

    monkeypatch.setattr(http_load, "wrk", scripted)
    result = alternated(8000, ["q"], 10, 3)
    assert asked == [1, 16, 1, 16, 1, 16]
    assert result.c1 == Load(1, 200, 4.0, 12.0)
    assert result.c16 == Load(16, 300, 42.0, 70.0)
    assert result.ratios == pytest.approx([1.6, 1.9, 300 / 210])
    assert result.ratio == pytest.approx(1.6)  # not 300 / 200 of the medians
    assert result.note() == "c16 / c1 requests a second by round: 1.60x, 1.90x, 1.43x"


def test_server_cpu_by_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The main thread's CPU a request is told apart from the other threads' (a server's
    search threads outlive the run, as this one does)."""
    asked, done, finish = threading.Event(), threading.Event(), threading.Event()

    def searches() -> None:
        asked.wait()
        end = time.thread_time() + 0.3
        while time.thread_time() < end:
            pass
        done.set()
        asked.clear()

    def busy_elsewhere(port: int, queries: list[str], concurrency: int, seconds: int) -> Load:
        done.clear()
        asked.set()
        done.wait(10)
        return Load(concurrency, 10.0, 1.0, 2.0)  # 10 requests a second for 1 s: 10 requests

    def serving() -> None:
        searches()
        searches()
        finish.wait(10)  # alive until the last reading

    worker = threading.Thread(target=serving, daemon=True)
    worker.start()
    monkeypatch.setattr(http_load, "wrk", busy_elsewhere)
    result = alternated(8000, ["q"], 1, 1, os.getpid())
    ((one, many),) = result.cpu
    assert one.search_ms >= 15  # ~300 ms of another thread's CPU over 10 requests: ~30 ms each
    assert one.http_ms < one.search_ms / 3  # this thread only waited
    assert 0.1 < one.cores < 1.5
    assert many.search_ms >= 15
    assert "search threads" in result.note() and "cores busy" in result.note()
    finish.set()
    worker.join(10)
    monkeypatch.setattr(http_load, "wrk", lambda *a: Load(a[2], 10.0, 1.0, 2.0))
    assert alternated(8000, ["q"], 1, 1).cpu == []  # no process given: no CPU read
