"""What Scrapy does per response on the crawl's settings (issue 23.1: the reactor's time goes to
downloading, not to Scrapy's bookkeeping): the real Crawler, spider and Scrapy functions."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scrapy.crawler import Crawler
from scrapy.utils.asyncio import _parallel_asyncio
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import warn_on_generator_with_return_value

from crawler.guard import AddressPolicy
from crawler.settings import scrapy_settings
from crawler.spiders.site import SiteSpider
from registry.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def site_spider(tmp_path: Path) -> SiteSpider:
    crawler = Crawler(SiteSpider, scrapy_settings(Settings(data_dir=tmp_path), AddressPolicy()))
    spider = SiteSpider(targets=["http://shop.test/"])
    spider._set_crawler(crawler)  # as from_crawler does, without installing a reactor
    return spider


def test_callbacks_are_not_read_and_parsed_for_every_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scrapy's return-value warning reads a callback's source and parses it; for a bound
    method (self.parse) its weak cache never keeps the answer, so it did so per response."""
    read: list[Any] = []
    original = inspect.getsource

    def counting(obj: Any) -> str:
        read.append(obj)
        return original(obj)

    monkeypatch.setattr(inspect, "getsource", counting)
    spider = site_spider(tmp_path)
    for _ in range(3):  # three responses' worth of callbacks
        warn_on_generator_with_return_value(spider, spider.parse)
        warn_on_generator_with_return_value(spider, spider.failed)
    assert read == []


def test_a_callbacks_output_is_taken_by_a_task_or_two_not_a_hundred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scraper.handle_spider_output_async hands each response's output to
    ``_parallel_asyncio(output, CONCURRENT_ITEMS, ...)``, which starts that many tasks however
    little the callback yields; the output is still all taken, in order."""
    spider = site_spider(tmp_path)
    started: list[asyncio.Task[Any]] = []
    create = asyncio.create_task

    def counted(coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        started.append(task := create(coro, **kwargs))
        return task

    taken: list[int] = []

    async def take(item: int) -> None:
        taken.append(item)

    monkeypatch.setattr(asyncio, "create_task", counted)
    count = spider.settings.getint("CONCURRENT_ITEMS")
    asyncio.run(_parallel_asyncio(iter(range(5)), count, take))
    assert taken == list(range(5))
    assert all(task.done() for task in started)
    assert len(started) <= 2, f"{len(started)} tasks started for one response's output"


def test_a_yielded_request_passes_only_the_spider_middlewares_the_crawl_needs(
    tmp_path: Path,
) -> None:
    """Depth only counted (the spider bounds its sitemaps' depth itself) and MetaCopyDetection
    only warns: each was one more async generator around every callback's output."""
    spider = site_spider(tmp_path)
    built = build_component_list(spider.settings.getwithbase("SPIDER_MIDDLEWARES"))
    assert "scrapy.spidermiddlewares.depth.DepthMiddleware" not in built
    assert "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware" not in built
    # what guards the crawl stays: HTTP errors to the errback, over-long URLs dropped
    assert "scrapy.spidermiddlewares.httperror.HttpErrorMiddleware" in built
    assert "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware" in built


PROBE_NOTHING = """
import json, sys
from pathlib import Path
from actiondex.runtime import open_store
from crawler.guard import AddressPolicy
from crawler.run import run_crawl  # what `actiondex crawl` loads
from crawler.probes import probe_sites
from registry.config import Settings

settings = Settings(data_dir=Path(sys.argv[1]))
summary = probe_sites(open_store(settings), settings, AddressPolicy(), ["shop.test"], 1.0)
loaded = [m for m in ("httpx2", "httpcore2", "anyio", "mcp_types") if m in sys.modules]
print(json.dumps({"endpoints": summary.endpoints, "requests": summary.requests, "loaded": loaded}))
"""


def test_a_crawl_with_no_endpoint_to_probe_loads_no_http_client(tmp_path: Path) -> None:
    """The probes' client (httpx2, anyio, mcp_types) took ~0.2 s of every crawl process's
    start-up, and of every batch a worker runs, though most crawls list no endpoint."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE_NOTHING, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"endpoints": 0, "requests": 0, "loaded": []}
