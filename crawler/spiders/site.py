"""SiteSpider: per site, robots.txt (RFC 9309), a catch-all probe, then in parallel the
well-known paths, the homepage and the sitemaps; then the pages, links and references they name.

Each site's requests are counted; when the last one completes the spider yields ONE SiteResult,
so the store promotes a site in one transaction, and a crash before that promotes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from typing import Any

from scrapy import Request, Spider
from scrapy.http import Response
from twisted.python.failure import Failure

from crawler.discovery import Discovery
from crawler.memory import Memory
from crawler.responses import classify
from crawler.robots import (
    MAX_CRAWL_DELAY,
    ROBOTS_MAX_BYTES,
    Robots,
    disallow_all,
    parse_robots,
    robots_agent,
)
from crawler.settings import MANIFEST_MAXSIZE, PAGE_MAXSIZE
from crawler.sitemaps import SITEMAP_MAXSIZE
from crawler.sitestate import SiteState, fingerprint
from crawler.targets import site_origin
from registry.formats import accept_for
from registry.model.schemas import SiteCrawl
from registry.model.urls import mixed_script_label

PROBE_TIMEOUT = 3.0  # well-known probes: most answer 404 at once; a slow one is not worth 30 s
MAXSIZE = {
    "robots": PAGE_MAXSIZE,
    "probe": MANIFEST_MAXSIZE,
    "manifest": MANIFEST_MAXSIZE,
    "reference": PAGE_MAXSIZE,
    "page": PAGE_MAXSIZE,
    "sitemap": SITEMAP_MAXSIZE,
    "schemamap": SITEMAP_MAXSIZE,
}
_CONDITIONAL = ("manifest", "page")  # the kinds whose documents the store keeps
_REMEMBERED = ("manifest", "sitemap", "schemamap")  # kinds whose guesses' 404s are remembered


class SiteSpider(Spider):
    name = "site"

    def __init__(
        self,
        targets: list[str],
        *args: Any,
        max_pages: int = 50,
        validators: dict[str, tuple[str | None, str | None]] | None = None,
        states: dict[str, dict[str, Any]] | None = None,
        stored: dict[str, list[str]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        origins = dict.fromkeys(site_origin(t) for t in targets)  # dedupe, keep order
        states = states or {}
        self.sites = {
            o: SiteState(
                SiteCrawl(host=h, origin=o), pages_left=max_pages, memory=Memory(states.get(h))
            )
            for h, o in origins
        }
        self.validators = validators or {}
        self.stored = stored or {}  # host -> its stored documents' URLs
        self._stored = {host: set(urls) for host, urls in self.stored.items()}
        self.discovery = Discovery(self.request)

    @property
    def agent(self) -> str:
        return robots_agent(str(self.settings.get("USER_AGENT", "actiondex")))

    async def start(self) -> AsyncIterator[Any]:
        for site in self.sites.values():
            requests = self._begin(site)
            site.pending += len(requests)
            for request in requests:
                yield request
            if not requests:  # robots.txt from memory forbids everything: done already
                self.crawler.stats.inc_value("site/crawled")
                yield self._result(site)

    def _begin(self, site: SiteState) -> list[Request]:
        if (label := mixed_script_label(site.crawl.host)) is not None:
            # Crawled and stored under its A-label, which cannot pass for another site; the
            # note warns whoever reads the site's errors (docs/RELIABILITY.md 20).
            site.note(
                site.crawl.origin,
                "confusable-host",
                f"the name {label!r} mixes scripts and can pass for another site's",
            )
        cached = site.memory.robots()
        if cached is not None:
            status, body = cached
            site.robots = parse_robots(body, self.agent) if status < 400 else Robots()
            if not site.robots.crawl_delay:  # a delay must be set on the slot: ask again
                return [r for r in self._probe(site) if r is not None]
        request = self.request(site, site.crawl.origin + "/robots.txt", "robots")
        return [request] if request is not None else []

    def request(
        self, site: SiteState, url: str, kind: str, guess: bool = False, **meta: Any
    ) -> Request | None:
        """A request within the site's budget and robots rules, or None (recorded why).
        ``guess``: a path asked because sites publish there (well-known paths, /sitemap.xml),
        not because robots.txt, a header, a page or the store points at it; a guess that
        answered 404 waits for its own schedule (crawler/memory.py)."""
        if kind != "robots" and not site.robots.allows(url, self.agent):
            site.note(url, "robots-disallowed", "disallowed by robots.txt")
            return None
        guess = guess and url not in self._stored.get(site.crawl.host, ())
        if guess and site.memory.missing(url):
            return None  # answered 404 lately: asked again on its own schedule
        if not site.admit(url):
            return None
        meta.update(
            origin=site.crawl.origin, kind=kind, guess=guess, download_maxsize=MAXSIZE[kind]
        )
        if kind in ("probe", "manifest"):
            meta.update(download_timeout=PROBE_TIMEOUT, max_retry_times=0)
        if site.crawl_delay is not None:
            meta["autothrottle_dont_adjust_delay"] = True
        headers = {}
        etag, modified = (
            self.validators.get(url, (None, None)) if kind in _CONDITIONAL else (None, None)
        )
        if etag:
            headers["If-None-Match"] = etag
        if modified:
            headers["If-Modified-Since"] = modified
        if accept := accept_for(url):
            headers["Accept"] = accept
        # dont_filter: a request the dupe filter drops never calls back, and the site would
        # hang; SiteState.admit dedupes instead.
        return Request(
            url,
            callback=self.parse,
            errback=self.failed,
            meta=meta,
            headers=headers,
            dont_filter=True,
        )

    def parse(self, response: Response, **_: Any) -> Iterator[Any]:
        site = self.sites[response.meta["origin"]]
        site.memory.forget_missing(response.request.url)
        handler = getattr(self, f"_on_{response.meta['kind']}", None) or getattr(
            self.discovery, f"on_{response.meta['kind']}"
        )
        try:
            follow = [r for r in handler(site, response) if r is not None]
        except Exception as exc:  # an escaping error would leave the site's count stuck
            site.note(response.url, "extract-error", str(exc), response.status)
            follow = []
        yield from self._follow(site, follow)

    def failed(self, failure: Failure) -> Iterator[Any]:
        request = failure.request
        site, kind = self.sites[request.meta["origin"]], request.meta["kind"]
        status, code, message = classify(failure)
        follow: list[Request | None] = []
        if kind == "robots":
            follow = list(self._robots_failed(site, request.url, status, code, message))
        elif kind == "probe":
            site.memory.remember_probe(None)
            follow = self.discovery.start(site)
        elif status == 304:
            site.crawl.not_modified.append(request.url)
        elif code == "not-found" and kind in _REMEMBERED:
            if request.meta.get("guess"):
                site.memory.remember_missing(request.url)
            site.note(request.url, code, message, status)
            follow = self.discovery.instead_of_missing(site, request.url)
        elif kind != "reference" or code != "not-found":
            site.note(request.url, code, message, status)
        yield from self._follow(site, [r for r in follow if r is not None])

    def _follow(self, site: SiteState, follow: list[Request]) -> Iterator[Any]:
        site.pending += len(follow) - 1
        yield from follow
        if site.pending == 0:
            self.crawler.stats.inc_value("site/crawled")
            yield self._result(site)

    def _result(self, site: SiteState) -> Any:
        site.note_withdrawn(self.stored.get(site.crawl.host, []), self.agent)
        return site.result()

    def _on_robots(self, site: SiteState, response: Response) -> Iterator[Request | None]:
        site.robots = robots = parse_robots(response.body, self.agent)
        site.memory.remember_robots(response.status, response.body[:ROBOTS_MAX_BYTES])
        if robots.truncated:
            site.note(response.url, "robots-truncated", "only the first 512 KiB were parsed")
        delay = robots.crawl_delay
        if delay is not None and delay > MAX_CRAWL_DELAY:
            site.note(
                response.url,
                "crawl-delay-too-long",
                f"Crawl-delay {delay:g} s is above the {MAX_CRAWL_DELAY:g} s cap; skipped",
            )
            return
        if delay:
            self._slow_down(site, response.request, delay)
        yield from self._probe(site)

    def _robots_failed(
        self, site: SiteState, url: str, status: int | None, code: str, message: str
    ) -> Iterator[Request | None]:
        if status is not None and 400 <= status < 500 and status != 429:
            site.memory.remember_robots(status, b"")
            yield from self._probe(site)  # 4xx: no rules, everything allowed (RFC 9309 2.3.1.3)
            return
        # 5xx, 429 and unreachable mean "disallow all" (RFC 9309 2.3.1.4): nothing more to ask.
        # These say more than "unavailable": a DNS failure is the site's name, not robots.txt.
        if code not in ("blocked-address", "tls-invalid", "dns-error", "connection-refused"):
            code, message = "robots-unavailable", f"{code}: {message}"
        site.robots = disallow_all()
        site.note(url, code, message, status)

    def _probe(self, site: SiteState) -> list[Request | None]:
        # A path no site publishes: a 200 here means the site answers every path the same way.
        url = f"{site.crawl.origin}/.well-known/actiondex-probe-{secrets.token_hex(6)}"
        cached = site.memory.probe()
        if cached is not None:
            site.catch_all = cached[0]
            return self.discovery.start(site)
        if not site.robots.allows(url, self.agent):
            return self.discovery.start(site)  # not ours to probe; take answers as they come
        return [self.request(site, url, "probe")]

    def _on_probe(self, site: SiteState, response: Response) -> list[Request | None]:
        site.catch_all = fingerprint(response.body)
        site.memory.remember_probe(site.catch_all)
        site.seen.discard(response.request.url)
        return self.discovery.start(site)

    def _slow_down(self, site: SiteState, request: Request, delay: float) -> None:
        site.crawl_delay = delay
        downloader = self.crawler.engine.downloader
        slot = downloader.slots.get(downloader.get_slot_key(request))
        if slot is not None:
            slot.delay = max(slot.delay, delay)
            slot.randomize_delay = False  # Crawl-delay is a minimum, not an average
