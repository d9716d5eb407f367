"""The baseline of bench/scrapy_parity.py: a plain Scrapy spider that fetches a given list of
URLs at actiondex's politeness and does nothing with the answers.

    python -m bench.plain_spider URLS.json

Same per-host limits as `actiondex crawl` (crawler/settings.py: 1 s between requests to one
host, 2 at once, AutoThrottle), Scrapy's broad-crawl settings (its own DownloaderAwarePriority-
Queue, which asks about every waiting host a request: past a few thousand hosts the baseline
slows where actiondex's queue, crawler/queue.py, does not; 100 requests in flight, no retries
or redirects), every host answered as 127.0.0.1 from a dict
(as `--resolve` does for actiondex). Prints one JSON line: requests answered and seconds.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scrapy import Request, Spider
from scrapy.crawler import CrawlerProcess
from twisted.internet.address import IPv4Address
from twisted.internet.interfaces import IHostnameResolver, IHostResolution, IResolutionReceiver
from zope.interface import implementer

from crawler.resolver import Resolution
from crawler.settings import CONCURRENT_REQUESTS


@implementer(IHostnameResolver)
class LoopbackResolver:
    """Every name is 127.0.0.1, at once."""

    def __init__(self, reactor: Any) -> None:
        self.reactor = reactor

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> LoopbackResolver:
        return cls(reactor)

    def install_on_reactor(self) -> None:
        self.reactor.installNameResolver(self)

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Sequence[Any] | None = None,
        transportSemantics: str = "TCP",
    ) -> IHostResolution:
        resolution = Resolution(hostName)
        resolutionReceiver.resolutionBegan(resolution)
        resolutionReceiver.addressResolved(IPv4Address("TCP", "127.0.0.1", portNumber))
        resolutionReceiver.resolutionComplete()
        return resolution


class PlainSpider(Spider):
    name = "plain"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls
        self.answered = 0

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url, callback=self.parse, errback=self.failed, dont_filter=True)

    def parse(self, response: Any) -> None:
        self.answered += 1

    def failed(self, failure: Any) -> None:
        self.answered += 1  # a 404 is an answer too


SETTINGS = {
    "LOG_LEVEL": "ERROR",
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,  # as actiondex crawl: no code-execution server
    "ROBOTSTXT_OBEY": False,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
    "REDIRECT_ENABLED": False,
    "CONCURRENT_REQUESTS": CONCURRENT_REQUESTS,  # the same as actiondex crawl
    "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
    "DOWNLOAD_DELAY": 1.0,
    "AUTOTHROTTLE_ENABLED": True,
    "AUTOTHROTTLE_START_DELAY": 1.0,
    "AUTOTHROTTLE_MAX_DELAY": 30.0,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
    "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue",
    "REACTOR_THREADPOOL_MAXSIZE": 20,
    "TWISTED_DNS_RESOLVER": "bench.plain_spider.LoopbackResolver",
}


def main() -> None:
    urls = json.loads(Path(sys.argv[1]).read_text())
    started = time.monotonic()
    process = CrawlerProcess(SETTINGS)
    crawler = process.create_crawler(PlainSpider)
    process.crawl(crawler, urls=urls)
    process.start()
    spider = crawler.spider
    answered = spider.answered if isinstance(spider, PlainSpider) else 0
    print(json.dumps({"requests": answered, "seconds": time.monotonic() - started}))


if __name__ == "__main__":
    main()
