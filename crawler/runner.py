"""The one place a Scrapy crawl runs: any spider, once, in this process, its items returned.

Twisted's reactor cannot be restarted, so a process runs at most one crawl (the CLI runs one
command per process; tests run the CLI in a subprocess).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scrapy import Spider, signals
from scrapy.crawler import CrawlerProcess


@dataclass
class Ran:
    """What a crawl yielded (after its item pipelines) and its final stats."""

    items: list[Any] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    reason: str = ""  # why the spider closed: "finished", "shutdown" (a signal stopped it)...


def run_spider(
    spider: type[Spider],
    config: dict[str, Any],
    on_item: Callable[[Any], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    **spider_args: Any,
) -> Ran:
    """Run ``spider`` with the Scrapy settings ``config`` until it closes. ``on_item`` sees
    each item as it comes (a progress line, say); ``on_ready`` runs once Scrapy has installed its
    reactor, before it runs."""
    process = CrawlerProcess(config)
    crawler = process.create_crawler(spider)
    ran = Ran()

    def scraped(item: Any) -> None:
        ran.items.append(item)
        if on_item is not None:
            on_item(item)

    def closed(reason: str) -> None:
        ran.stats = dict(crawler.stats.get_stats())
        ran.reason = reason

    # Scrapy holds receivers weakly; these locals live until process.start() returns.
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    crawler.signals.connect(closed, signal=signals.spider_closed)
    process.crawl(crawler, **spider_args)  # installs the reactor
    if on_ready is not None:
        on_ready()
    # Scrapy's handlers turn SIGTERM/SIGINT into a graceful stop while it runs, and stay
    # installed afterwards, where they would swallow the signal: put the caller's back.
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        process.start()
    finally:
        for sig, handler in before.items():
            if handler is not None:
                signal.signal(sig, handler)
    return ran
