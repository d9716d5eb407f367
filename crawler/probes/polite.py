"""Probes mind their manners as the crawler does (docs/RELIABILITY.md 56): robots.txt of every
host a probe asks (RFC 9309 as crawler/spiders/site.py reads it: 4xx allows all, 5xx or 429
disallows all; the crawler's user agent token), read once per host per run and bounded; the
crawler's Web Bot Auth signature (crawler/signing.py) on every request; robots.txt's
``Crawl-delay`` between one host's probes.

It hooks into a probe's client (crawler/probes/transport.py): every request, a redirect or the
RFC 9728 metadata too, is checked against its host's robots.txt and then signed. A URL that
robots.txt disallows raises ``Disallowed``: nothing is sent and the probe has no verdict. A
robots.txt that got no HTTP answer (refused by the guard, no connection, no answer in time)
raises ``Unanswered``: the host is unreachable, and the endpoint was never asked.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import urlsplit

import httpx2

from crawler import robots
from crawler.probes.transport import Late, NotAsked, Refused
from crawler.robots import Robots
from crawler.signing import signed, signer_for
from registry.config import Settings

ROBOTS = "/robots.txt"


class Disallowed(NotAsked):
    """robots.txt of the URL's host disallows it: not asked."""


class Unanswered(NotAsked):
    """robots.txt of the URL's host got no HTTP answer: the host is unreachable."""


class Polite:
    """One run's robots.txt rules (per origin, fetched once) and the crawler's signer."""

    def __init__(self, settings: Settings) -> None:
        self.agent = robots.robots_agent(settings.user_agent)
        self.timeout = settings.probe_timeout
        self.signer = signer_for(settings)
        self.requests = 0  # robots.txt fetches (redirects included)
        self._rules: dict[str, Robots | Unanswered] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._fetching = threading.local()  # a robots.txt fetch is never checked against robots

    def attach(self, http: httpx2.Client) -> httpx2.Client:
        """Check and sign every request ``http`` sends (after the address guard's check)."""

        def before(request: httpx2.Request) -> None:
            url = str(request.url)
            if not getattr(self._fetching, "on", False):
                self.check(http, url)
            if self.signer is not None:
                request.headers.update(signed(self.signer, url))

        hooks = http.event_hooks
        hooks["request"].append(before)
        http.event_hooks = hooks
        return http

    def check(self, http: httpx2.Client, url: str) -> None:
        """Raise Disallowed or Unanswered unless robots.txt lets the probe ask ``url``."""
        rules = self.rules(http, url)
        if isinstance(rules, Unanswered):
            raise Unanswered(str(rules))
        if not rules.allows(url, self.agent):
            raise Disallowed(f"robots.txt disallows {url}")

    def crawl_delay(self, url: str) -> float:
        """The Crawl-delay robots.txt of ``url``'s host asks (capped), or 0."""
        rules = self._rules.get(_origin(url))
        delay = rules.crawl_delay if isinstance(rules, Robots) else None
        return min(delay or 0.0, robots.MAX_CRAWL_DELAY)

    def rules(self, http: httpx2.Client, url: str) -> Robots | Unanswered:
        origin = _origin(url)
        with self._guard:
            lock = self._locks.setdefault(origin, threading.Lock())
        with lock:  # one fetch per origin, however many threads ask
            if origin not in self._rules:
                self._rules[origin] = self._fetch(http, origin)
            return self._rules[origin]

    def _fetch(self, http: httpx2.Client, origin: str) -> Robots | Unanswered:
        self._fetching.on = True
        deadline = time.monotonic() + self.timeout
        try:
            with http.stream("GET", origin + ROBOTS, follow_redirects=True) as response:
                with self._guard:
                    self.requests += 1 + len(response.history)
                status, body = response.status_code, _head(response, deadline)
        except (Late, httpx2.TimeoutException):
            return Unanswered("robots.txt: timeout")
        except Refused as exc:
            return Unanswered(f"robots.txt refused: {exc}"[:300])
        except httpx2.HTTPError as exc:
            return Unanswered(f"robots.txt: {type(exc).__name__}: {exc}"[:300])
        finally:
            self._fetching.on = False
        if 200 <= status < 300:
            return robots.parse_robots(body, self.agent)
        if 400 <= status < 500 and status != 429:
            return Robots()  # RFC 9309 2.3.1.3: no rules, everything allowed
        return robots.disallow_all()  # 5xx and 429 (RFC 9309 2.3.1.4)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _head(response: httpx2.Response, deadline: float) -> bytes:
    """The first robots.ROBOTS_MAX_BYTES and a byte (parse_robots says it was cut), in time."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if time.monotonic() > deadline:
            raise Late("robots.txt took longer than a probe waits")
        if size > robots.ROBOTS_MAX_BYTES:
            break
    return b"".join(chunks)[: robots.ROBOTS_MAX_BYTES + 1]
