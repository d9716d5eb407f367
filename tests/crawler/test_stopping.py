"""crawler/stopping.py: SIGTERM while Scrapy installs its reactor. Seen in CI: the handler raised
CrawlAborted inside Scrapy's crawl Deferred (`install_reactor` was running), which Twisted then
printed as "Unhandled error in Deferred" with a traceback on stderr. Now the stop waits for the
reactor and is carried out as soon as it runs."""

from __future__ import annotations

import signal
import sys
from typing import Any

import pytest

from crawler.stopping import StopRequest
from registry.store.crawl_state import CrawlAborted

REACTOR = "twisted.internet.reactor"


class FakeReactor:
    running = False

    def __init__(self) -> None:
        self.when_running: list[Any] = []

    def stop(self) -> None:
        pass

    def callWhenRunning(self, call: Any) -> None:
        self.when_running.append(call)


def test_a_signal_while_scrapy_installs_its_reactor_stops_the_crawl_once_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stop = StopRequest()
    monkeypatch.delitem(sys.modules, REACTOR, raising=False)  # not installed yet
    with stop.scrapy_running():
        stop.handle(signal.SIGTERM, None)  # raised CrawlAborted into Scrapy's code before
        assert stop.requested
        reactor = FakeReactor()
        monkeypatch.setitem(sys.modules, REACTOR, reactor)  # Scrapy has installed it
        stop.reactor_ready()
    assert reactor.when_running == [reactor.stop]


def test_a_signal_once_the_reactor_is_there_stops_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stop, reactor = StopRequest(), FakeReactor()
    monkeypatch.setitem(sys.modules, REACTOR, reactor)
    with stop.scrapy_running():
        stop.handle(signal.SIGTERM, None)
        stop.reactor_ready()  # a second stop would raise ReactorNotRunning as it runs
    assert reactor.when_running == [reactor.stop]


def test_a_signal_outside_scrapy_aborts_at_once_and_none_leaves_the_reactor_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stop = StopRequest()
    with pytest.raises(CrawlAborted):
        stop.handle(signal.SIGTERM, None)
    quiet, reactor = StopRequest(), FakeReactor()
    monkeypatch.setitem(sys.modules, REACTOR, reactor)
    quiet.reactor_ready()
    assert reactor.when_running == []
