"""Fetching for `actiondex validate`: the crawler's own spider and guard, but nothing stored.

A site is fetched by the crawler's SiteSpider (robots.txt obeyed, the same well-known paths,
the same address guard and limits) with no item pipeline at all, so its SiteCrawl comes back
through the item_scraped signal instead of reaching StorePipeline.
"""

from __future__ import annotations

from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response
from twisted.python.failure import Failure

from crawler.guard import AddressPolicy
from crawler.settings import scrapy_settings
from crawler.spiders.site import SiteSpider, classify, to_document
from registry.config import Settings
from registry.formats import MAX_BYTES, normalise
from registry.formats._references import MAX_RESOLVED
from registry.schemas import FetchFailure, RawDocument, SiteCrawl

Fetched = tuple[RawDocument, dict[str, bytes]]  # a document and the references it read


def fetch_site(url: str, settings: Settings,
               policy: AddressPolicy) -> tuple[SiteCrawl, dict[str, bytes]]:
    """The site's crawl and the referenced documents its manifests read through."""
    crawls = [item for item in _fetch(SiteSpider, settings, policy, targets=[url])
              if isinstance(item, SiteCrawl)]
    if not crawls:  # only when the spider itself broke: a failed fetch is still recorded
        raise RuntimeError(f"the crawl of {url} produced no result")
    return crawls[0], dict(getattr(crawls[0], "references", None) or {})


def fetch_document(url: str, settings: Settings,
                   policy: AddressPolicy) -> Fetched | FetchFailure | str:
    """The document with the references it names, why it could not be read, or (an HTML
    page with no Schema.org) its URL."""
    items = _fetch(_DocumentSpider, settings, policy, url=url)
    if not items:
        raise RuntimeError(f"fetching {url} produced no result")
    return items[0]  # type: ignore[no-any-return]


class _DocumentSpider(Spider):
    """Fetches one document and the documents it references (one level, at most
    MAX_RESOLVED), so an ai-plugin.json is checked with the OpenAPI behind it.

    robots.txt is not consulted: the owner named this URL to check it, the way a browser
    would fetch it; the address guard and size limits still apply (they live in settings).
    """

    name = "validate-document"

    def __init__(self, url: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.url = url
        self.document: RawDocument | None = None
        self.references: dict[str, bytes] = {}
        self.pending = 0

    async def start(self) -> Any:
        yield Request(self.url, callback=self.parse, errback=self.failed, dont_filter=True)

    def parse(self, response: Response, **_: Any) -> Any:
        try:
            self.document = to_document(response)
        except Exception as exc:  # hostile markup: report it, as the site spider does
            yield FetchFailure(url=response.url, status=response.status, code="extract-error",
                               message=str(exc)[:300])
            return
        if self.document is None:  # an HTML page without Schema.org items
            yield response.url
            return
        refs = normalise(self.document).references[:MAX_RESOLVED]
        if not refs:
            yield self.document, self.references
        self.pending = len(refs)
        for ref in refs:
            yield Request(ref, callback=self.referenced, errback=self.unresolved,
                          meta={"download_maxsize": MAX_BYTES}, dont_filter=True)

    def referenced(self, response: Response, **_: Any) -> Any:
        self.references[response.request.url] = response.body
        yield from self.unresolved(None)

    def unresolved(self, _: Failure | None) -> Any:
        # A reference that fails stays unresolved; the report's diagnostics say so.
        self.pending -= 1
        if self.pending == 0:
            yield self.document, self.references

    def failed(self, failure: Failure) -> Any:
        status, code, message = classify(failure)
        yield FetchFailure(url=failure.request.url, status=status, code=code, message=message)


def _fetch(spider: type[Spider], settings: Settings, policy: AddressPolicy,
           **spider_args: Any) -> list[Any]:
    """Run one crawl in this process and return what the spider yielded (never stored).

    Twisted's reactor cannot restart, so this runs once per process, like run_crawl.
    """
    # Someone is waiting at a terminal for one site: a shorter delay than a crawl's, the
    # same concurrency cap (a robots.txt Crawl-delay still wins: the spider applies it).
    config = scrapy_settings(settings, policy, delay=0.25)
    config["ITEM_PIPELINES"] = {}  # validation must never reach the store
    process = CrawlerProcess(config)
    crawler = process.create_crawler(spider)
    items: list[Any] = []

    def scraped(item: Any) -> None:
        items.append(item)

    # Scrapy holds receivers weakly; ``scraped`` lives until process.start() returns.
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    process.crawl(crawler, **spider_args)
    process.start()
    return items

