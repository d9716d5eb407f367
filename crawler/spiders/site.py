"""SiteSpider: robots.txt first (RFC 9309), then the well-known manifests and the homepage.

Each site's requests are counted; when the last one completes the spider yields ONE SiteCrawl,
so the store promotes a site in one transaction, and a crash before that promotes nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from protego import Protego
from scrapy import Request, Spider
from scrapy.exceptions import (
    DownloadCancelledError,
    DownloadTimeoutError,
    IgnoreRequest,
)
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import TCPTimedOutError
from twisted.python.failure import Failure

from crawler.extract import html_to_document, is_html
from crawler.middlewares import BlockedAddress
from crawler.settings import MANIFEST_MAXSIZE
from registry.schemas import FetchFailure, RawDocument, SiteCrawl

PATHS = ("/.well-known/agent-actions.json", "/.well-known/agents.json", "/")
ROBOTS_MAX_BYTES = 512 * 1024  # RFC 9309 2.5: parse at least 500 KiB, ignore the rest


@dataclass
class _Site:
    crawl: SiteCrawl
    pending: int = 0


def site_origin(target: str) -> tuple[str, str]:
    """(host, origin) of a target: a bare domain means https; a URL keeps scheme and port."""
    parts = urlsplit(target if "://" in target else f"https://{target}")
    host = (parts.hostname or "").rstrip(".")
    if not host or parts.scheme not in ("http", "https"):
        raise ValueError(f"{target!r} is not a domain or an http(s) URL")
    return host, f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1].lower()}"


class SiteSpider(Spider):
    name = "site"

    def __init__(self, targets: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        origins = dict.fromkeys(site_origin(t) for t in targets)  # dedupe, keep order
        self.sites = {o: _Site(SiteCrawl(host=h, origin=o)) for h, o in origins}

    async def start(self) -> AsyncIterator[Request]:
        for site in self.sites.values():
            yield self._request(site, "/robots.txt", self.parse_robots, self.robots_failed)

    def _request(self, site: _Site, path: str, callback: Any, errback: Any) -> Request:
        site.pending += 1
        meta = {"origin": site.crawl.origin}
        if path != "/":
            meta["download_maxsize"] = MANIFEST_MAXSIZE
        # dont_filter: a request the dupe filter drops never calls back, and the site would hang.
        return Request(site.crawl.origin + path, callback=callback, errback=errback,
                       meta=meta, dont_filter=True)

    def _site(self, request: Request) -> _Site:
        return self.sites[request.meta["origin"]]

    def parse_robots(self, response: Response) -> Iterator[Any]:
        site = self._site(response.request)
        text = response.body[:ROBOTS_MAX_BYTES].decode("utf-8", "replace")
        yield from self._after_robots(site, Protego.parse(text))

    def robots_failed(self, failure: Failure) -> Iterator[Any]:
        site = self._site(failure.request)
        status, code, message = classify(failure)
        if status is not None and 400 <= status < 500 and status != 429:
            yield from self._after_robots(site, None)  # 4xx: no rules, everything allowed
            return
        # 5xx, 429 and unreachable mean "disallow all" (RFC 9309 2.3.1.3-4).
        if code != "blocked-address":
            code, message = "robots-unavailable", f"{code}: {message}"
        site.crawl.failures.append(FetchFailure(url=failure.request.url, status=status,
                                                code=code, message=message))
        yield from self._after_robots(site, _DISALLOW_ALL)

    def _after_robots(self, site: _Site, robots: Protego | None) -> Iterator[Any]:
        agent = str(self.settings.get("USER_AGENT", "actiondex")).split("/")[0]
        follow = []
        for path in PATHS:
            url = site.crawl.origin + path
            if robots is None or robots.can_fetch(url, agent):
                follow.append(self._request(site, path, self.parse_document, self.fetch_failed))
            else:
                site.crawl.failures.append(FetchFailure(url=url, code="robots-disallowed",
                                                        message="disallowed by robots.txt"))
        yield from follow
        yield from self._done(site)

    def parse_document(self, response: Response) -> Iterator[Any]:
        site = self._site(response.request)
        try:
            document = to_document(response)
        except Exception as exc:  # an escaping error would leave the site's count stuck above 0
            site.crawl.failures.append(FetchFailure(url=response.url, status=response.status,
                                                    code="extract-error", message=str(exc)[:300]))
            document = None
        if document is not None:
            site.crawl.documents.append(document)
        yield from self._done(site)

    def fetch_failed(self, failure: Failure) -> Iterator[Any]:
        site = self._site(failure.request)
        status, code, message = classify(failure)
        if status == 304:
            site.crawl.not_modified.append(failure.request.url)
        else:
            site.crawl.failures.append(FetchFailure(url=failure.request.url, status=status,
                                                    code=code, message=message))
        yield from self._done(site)

    def _done(self, site: _Site) -> Iterator[SiteCrawl]:
        site.pending -= 1
        if site.pending == 0:
            self.crawler.stats.inc_value("site/crawled")
            yield site.crawl


_DISALLOW_ALL = Protego.parse("User-agent: *\nDisallow: /\n")


def _header(response: Response, name: str) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


def to_document(response: Response) -> RawDocument | None:
    """HTML pages become their JSON-LD items (or nothing); any other body is kept as served."""
    content_type = _header(response, "Content-Type") or ""
    fields: dict[str, Any] = {"status": response.status, "etag": _header(response, "ETag"),
                              "last_modified": _header(response, "Last-Modified"),
                              "fetched_at": datetime.now(UTC)}
    if is_html(content_type, response.body):
        return html_to_document(response.url, response.body, **fields)
    return RawDocument(url=response.url, body=response.body, content_type=content_type, **fields)


def classify(failure: Failure) -> tuple[int | None, str, str]:
    """(status, FetchFailure code, one-line message) for a failed request."""
    exc = failure.value
    message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, HttpError):
        status = exc.response.status
        return status, "not-found" if status in (404, 410) else "http-error", f"HTTP {status}"
    if isinstance(exc, BlockedAddress):
        return None, "blocked-address", message
    if isinstance(exc, DownloadTimeoutError | TCPTimedOutError):
        return None, "timeout", message
    if isinstance(exc, DownloadCancelledError) or "MAXSIZE" in message:
        # Scrapy cancels a download past download_maxsize (and names the setting when a
        # decompressed body would exceed it).
        return None, "too-large", message
    if isinstance(exc, IgnoreRequest):
        # RedirectMiddleware gives up with a plain IgnoreRequest; its message is all we get.
        too_many = "redirections" in message
        return None, "too-many-redirects" if too_many else "http-error", message
    return None, "network-error", message
