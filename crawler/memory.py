"""What the crawler remembers about a site between runs (``sites.crawl_state``).

- robots.txt for 24 h (RFC 9309 2.4), when it answered 2xx or 4xx; an unavailable robots.txt
  is asked again next time, and one with a Crawl-delay too (the delay must reach the slot).
- the catch-all probe's answer, for 24 h.
- paths that answered 404/410, skipped for 24 h: a manifest published today is found within a
  day, and a stored document that vanished still gets its one 404 a day towards tombstoning.

An unchanged recrawl inside those 24 h changes none of it, so it writes nothing. The state is
read and written through registry.store.crawl_state.
"""

from __future__ import annotations

import time
from typing import Any

TTL = 24 * 3600.0


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

    def missing(self, url: str) -> bool:
        return self._fresh(self.data["missing"].get(url))

    def remember_missing(self, url: str) -> None:
        self.data["missing"][url] = self.now
        self.changed = True

    def forget_missing(self, url: str) -> None:
        if self.data["missing"].pop(url, None) is not None:
            self.changed = True

    def state(self) -> dict[str, Any] | None:
        """The state to store, or None when nothing changed (then nothing is written)."""
        if not self.changed:
            return None
        self.data["missing"] = {u: t for u, t in self.data["missing"].items() if self._fresh(t)}
        return self.data
