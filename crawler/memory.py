"""What the crawler remembers about a site between runs (``sites.crawl_state``).

- robots.txt for 24 h (RFC 9309 2.4), when it answered 2xx or 4xx; an unavailable robots.txt
  is asked again next time, and one with a Crawl-delay too (the delay must reach the slot).
- the catch-all probe's answer, for 24 h.
- guessed paths (the well-known paths, /sitemap.xml) that answered 404/410 or a soft 404 (the
  catch-all's page), each on its own schedule: asked again MISSING_FIRST after the first miss,
  twice as long after each further one, at most MISSING_MAX apart (issue 23.3). A recrawl of an
  unchanged site a day later asks robots.txt, the probe and what it stores, not 16 guesses.
  What robots.txt, a Link header, a page or the store points at is asked regardless
  (crawler/spiders/site.py): a stored document that vanished still gets its 404 every crawl
  towards tombstoning, and a manifest a site links to is read at once.

An unchanged recrawl inside those 24 h changes none of it, so it writes nothing. The state is
read and written through registry.store.crawl_state.
"""

from __future__ import annotations

import time
from typing import Any

TTL = 24 * 3600.0
MISSING_FIRST = 2 * TTL  # longer than a new site's recrawl interval (ACTIONDEX_RECRAWL_INITIAL)
MISSING_MAX = 7 * TTL  # a path published later is found within a week, or at once if linked


class Memory:
    def __init__(self, data: dict[str, Any] | None = None, now: float | None = None) -> None:
        self.data: dict[str, Any] = dict(data or {})
        self.data.setdefault("missing", {})
        self.now = time.time() if now is None else now
        self.changed = False

    def _fresh(self, at: Any) -> bool:
        return isinstance(at, int | float) and 0 <= self.now - at < TTL

    def robots(self) -> tuple[int, bytes] | None:
        cached = self.data.get("robots")
        if isinstance(cached, dict) and self._fresh(cached.get("at")):
            return int(cached["status"]), str(cached["body"]).encode()
        return None

    def remember_robots(self, status: int, body: bytes) -> None:
        text = body.decode("utf-8", "replace")
        self.data["robots"] = {"status": status, "body": text, "at": self.now}
        self.changed = True

    def probe(self) -> tuple[str | None] | None:
        """(catch-all fingerprint or None,) when the probe's answer is fresh."""
        cached = self.data.get("probe")
        if isinstance(cached, dict) and self._fresh(cached.get("at")):
            return (cached.get("catch_all"),)
        return None

    def remember_probe(self, catch_all: str | None) -> None:
        self.data["probe"] = {"catch_all": catch_all, "at": self.now}
        self.changed = True

    def _miss(self, url: str) -> tuple[float, int] | None:
        """(when the path last answered 404, how many times in a row), or None."""
        entry = self.data["missing"].get(url)
        if isinstance(entry, int | float):  # the older form: a time, one miss
            return float(entry), 1
        if isinstance(entry, dict) and isinstance(entry.get("at"), int | float):
            misses = entry.get("misses")
            return float(entry["at"]), misses if isinstance(misses, int) and misses > 0 else 1
        return None

    def missing(self, url: str) -> bool:
        """Whether ``url`` answered 404 recently enough for its schedule not to ask again."""
        miss = self._miss(url)
        return miss is not None and 0 <= self.now - miss[0] < missing_wait(miss[1])

    def remember_missing(self, url: str) -> None:
        miss = self._miss(url)
        if miss is not None and miss[0] == self.now:
            return  # this crawl's answer, remembered already
        self.data["missing"][url] = {"at": self.now, "misses": (miss[1] + 1) if miss else 1}
        self.changed = True

    def forget_missing(self, url: str) -> None:
        if self.data["missing"].pop(url, None) is not None:
            self.changed = True

    def state(self) -> dict[str, Any] | None:
        """The state to store, or None when nothing changed (then nothing is written)."""
        if not self.changed:
            return None
        self.data["missing"] = {
            u: entry
            for u, entry in self.data["missing"].items()
            if (miss := self._miss(u)) is not None and self.now - miss[0] < 2 * MISSING_MAX
        }  # a path not asked for two of its longest waits: no longer guessed, forgotten
        return self.data


def missing_wait(misses: int) -> float:
    """Seconds a path that answered 404 ``misses`` times in a row is not asked again."""
    return min(MISSING_MAX, MISSING_FIRST * 2 ** min(max(misses, 1) - 1, 16))
