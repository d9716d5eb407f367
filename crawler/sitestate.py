"""What the spider knows about one site while crawling it: budget, robots, catch-all, results."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from crawler.memory import Memory
from crawler.robots import Robots
from registry.model.schemas import FetchFailure, RawDocument, SiteCrawl
from registry.placement import origin_of
from registry.store.rows import utcnow

MAX_REQUESTS = 200  # per site, on top of the page limit: bounds what one site can cost
SITE_SECONDS = 300.0  # per site: past this no new request is started
MAX_SITEMAP_FILES = 20


class SiteResult(SiteCrawl):
    """The spider's item: a site's crawl plus the documents its manifests reference (an
    OpenAPI behind an ai-plugin.json) and what the crawler remembers of the site."""

    references: dict[str, bytes] = Field(default_factory=dict)
    crawl_state: dict[str, Any] | None = None  # None: the crawler's memory did not change

    def with_references(self) -> SiteCrawl:
        """One SiteCrawl for the store: references become documents of the crawl, which
        registry.normalising.normalise_site lets their referrers read (and keeps, raw)."""
        known = {doc.url for doc in self.documents}
        extra = [
            RawDocument(url=url, body=body, fetched_at=utcnow())
            for url, body in self.references.items()
            if url not in known
        ]
        return SiteCrawl(
            host=self.host,
            origin=self.origin,
            documents=[*self.documents, *extra],
            not_modified=self.not_modified,
            failures=self.failures,
            first_pass=self.first_pass,
        )


@dataclass
class SiteState:
    crawl: SiteCrawl
    pages_left: int
    requests_left: int = MAX_REQUESTS
    deadline: float = field(default_factory=lambda: time.monotonic() + SITE_SECONDS)
    pending: int = 0
    robots: Robots = field(default_factory=Robots)
    crawl_delay: float | None = None
    catch_all: str | None = None  # body hash of the answer to a path that cannot exist
    sitemap_files: int = 0
    references: dict[str, bytes] = field(default_factory=dict)
    memory: Memory = field(default_factory=Memory)
    seen: set[str] = field(default_factory=set)
    _noted: set[str] = field(default_factory=set)

    def note(self, url: str, code: str, message: str, status: int | None = None) -> None:
        self.crawl.failures.append(
            FetchFailure(url=url, status=status, code=code, message=message[:300])
        )

    def note_once(self, url: str, code: str, message: str) -> None:
        if code not in self._noted:
            self._noted.add(code)
            self.note(url, code, message)

    def admit(self, url: str) -> bool:
        """Whether one more request for ``url`` fits: not seen before, within the budgets."""
        if url in self.seen:
            return False
        if time.monotonic() > self.deadline or self.requests_left <= 0:
            self.note_once(url, "site-budget", "per-site time or request budget used up")
            return False
        self.seen.add(url)
        self.requests_left -= 1
        return True

    def note_withdrawn(self, stored: list[str], agent: str) -> None:
        """Note every stored document of this origin that robots.txt now disallows as
        ``robots-disallowed``, so the store withdraws it even if this crawl never came across
        it (``Disallow: /`` hides the sitemap that listed a page). Not when robots.txt was
        unavailable: that is disallow-all by RFC 9309, but no word of the owner's."""
        if self.robots.rules is None or self.robots.unavailable:
            return
        noted = {f.url for f in self.crawl.failures if f.code == "robots-disallowed"}
        for url in stored:
            if (
                url not in noted
                and _origin(url) == self.crawl.origin
                and not self.robots.allows(url, agent)
            ):
                self.note(url, "robots-disallowed", "disallowed by robots.txt")

    def result(self) -> SiteResult:
        return SiteResult.model_construct(
            **dict(self.crawl), references=self.references, crawl_state=self.memory.state()
        )


def _origin(url: str) -> str | None:
    try:
        return origin_of(url)
    except ValueError:
        return None


def fingerprint(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()
