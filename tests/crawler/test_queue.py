"""The crawl's scheduler queue (crawler/queue.py): each host in turn, the least busy first, and
a pop that looks at a few hosts however many are waiting."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import pytest
from scrapy import Request
from scrapy.settings import Settings
from scrapy.squeues import FifoMemoryQueue

from crawler.guard import AddressPolicy
from crawler.queue import WINDOW, RingPriorityQueue
from crawler.settings import scrapy_settings
from registry.config import Settings as Config


class Downloader:
    """What the queue asks of Scrapy's downloader: a request's host, and what each host has in
    flight (counted here: how many hosts were asked about)."""

    def __init__(self) -> None:
        self.slots: dict[str, Any] = {}
        self.asked = 0

    def get_slot_key(self, request: Request) -> str:
        return urlsplit(request.url).hostname or ""

    def busy(self, host: str, n: int) -> None:
        self.slots[host] = SimpleNamespace(active=set(range(n)))


def _queue() -> tuple[RingPriorityQueue, Downloader]:
    downloader = Downloader()
    crawler = SimpleNamespace(
        settings=Settings({"CONCURRENT_REQUESTS_PER_IP": 0}),
        engine=SimpleNamespace(downloader=downloader),
    )
    queue = RingPriorityQueue(crawler, FifoMemoryQueue, "")  # type: ignore[arg-type]
    stats = queue._downloader_interface.stats

    def counted(slots: Any) -> list[tuple[int, str]]:
        found = stats(slots)
        downloader.asked += len(found)
        return found

    queue._downloader_interface.stats = counted  # type: ignore[method-assign]
    return queue, downloader


def _hosts(queue: RingPriorityQueue, n: int) -> list[str]:
    out = []
    while len(out) < n and (request := queue.pop()) is not None:
        out.append(urlsplit(request.url).hostname or "")
    return out


def test_each_host_takes_its_turn() -> None:
    queue, _ = _queue()
    for path in ("/robots.txt", "/a", "/b"):
        for host in ("a.test", "b.test", "c.test"):
            queue.push(Request(f"http://{host}{path}"))
    assert _hosts(queue, 9) == ["a.test", "b.test", "c.test"] * 3
    assert len(queue) == 0 and queue.pop() is None


def test_a_host_with_requests_in_flight_waits_for_an_idle_one() -> None:
    queue, downloader = _queue()
    for host in ("a.test", "b.test", "c.test"):
        queue.push(Request(f"http://{host}/"))
    downloader.busy("a.test", 1)
    downloader.busy("b.test", 2)
    assert _hosts(queue, 1) == ["c.test"]
    assert _hosts(queue, 2) == ["a.test", "b.test"]  # then the least busy of the rest


def test_a_hosts_own_requests_keep_their_priority() -> None:
    queue, _ = _queue()
    queue.push(Request("http://a.test/late", priority=0))
    queue.push(Request("http://a.test/first", priority=10))
    assert [queue.pop().url for _ in range(2)] == ["http://a.test/first", "http://a.test/late"]  # type: ignore[union-attr]


def test_peek_shows_the_next_pop_and_changes_nothing() -> None:
    queue, downloader = _queue()
    for host in ("a.test", "b.test", "c.test"):
        queue.push(Request(f"http://{host}/"))
    downloader.busy("a.test", 1)
    peeked = queue.peek()
    assert peeked is not None and peeked is queue.peek()
    assert queue.pop() is peeked  # b.test: a.test was busy
    assert _hosts(queue, 2) == ["c.test", "a.test"]  # the busy host passed went to the back


@pytest.mark.parametrize("hosts", [99, 4_998])
def test_a_pop_looks_at_a_few_hosts_however_many_wait(hosts: int) -> None:
    """Scrapy's own queue asks about every waiting host on every pop: 4,998 hosts' first
    third would cost it ~10 million looks."""
    queue, downloader = _queue()
    for i in range(hosts):
        downloader.busy(f"h{i}.test", 1 if i % 3 else 0)  # two in three hosts busy
        queue.push(Request(f"http://h{i}.test/robots.txt"))
    idle = {f"h{i}.test" for i in range(0, hosts, 3)}
    assert set(_hosts(queue, len(idle))) == idle  # the idle hosts first
    assert downloader.asked <= 3 * len(idle) + 1  # each found within a few looks
    assert len(_hosts(queue, hosts)) == hosts - len(idle)  # then the busy ones, in turn
    assert downloader.asked <= WINDOW * hosts


def test_the_crawl_uses_it() -> None:
    settings = scrapy_settings(Config(), AddressPolicy())
    assert settings["SCHEDULER_PRIORITY_QUEUE"] == "crawler.queue.RingPriorityQueue"
