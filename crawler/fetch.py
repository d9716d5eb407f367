"""Fetching for ``actiondex validate``: the crawler's own spiders and guard, nothing stored.

A site is fetched by SiteSpider (robots.txt obeyed, the same well-known paths, address guard
and limits) with no item pipeline at all, so its crawl comes back from the runner instead of
reaching StorePipeline.
"""

from __future__ import annotations

from typing import Any

from crawler.guard import AddressPolicy
from crawler.runner import run_spider
from crawler.settings import scrapy_settings
from crawler.signing import KEEPS_NOTHING
from crawler.sitestate import SiteResult
from crawler.spiders.document import DocumentSpider
from crawler.spiders.site import SiteSpider
from registry.config import Settings
from registry.model.schemas import FetchFailure, RawDocument, SiteCrawl

Fetched = tuple[RawDocument, dict[str, bytes]]  # a document and the references it read


def fetch_site(url: str, settings: Settings, policy: AddressPolicy) -> SiteCrawl:
    """The site's crawl as the store would receive it (references among its documents)."""
    crawls = [
        item
        for item in _fetch(SiteSpider, settings, policy, targets=[url])
        if isinstance(item, SiteResult)
    ]
    if not crawls:  # only when the spider itself broke: a failed fetch is still recorded
        raise RuntimeError(f"the crawl of {url} produced no result")
    return crawls[0].with_references()


def fetch_document(
    url: str, settings: Settings, policy: AddressPolicy
) -> Fetched | FetchFailure | str:
    """The document with the references it names, why it could not be read, or (an HTML
    page with no Schema.org) its URL."""
    items = _fetch(DocumentSpider, settings, policy, url=url)
    if not items:
        raise RuntimeError(f"fetching {url} produced no result")
    return items[0]  # type: ignore[no-any-return]


def _fetch(spider: Any, settings: Settings, policy: AddressPolicy, **spider_args: Any) -> list[Any]:
    # Someone is waiting at a terminal for one site: a shorter delay than a crawl's, the
    # same concurrency cap (a robots.txt Crawl-delay still wins: the spider applies it).
    config = scrapy_settings(settings, policy, delay=0.25)
    config["ITEM_PIPELINES"] = {}  # validation must never reach the store
    config[KEEPS_NOTHING] = True  # nor leave a file: signed only with a key the store has
    return run_spider(spider, config, **spider_args).items
