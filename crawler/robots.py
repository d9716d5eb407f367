"""robots.txt per RFC 9309, plus the discovery lines other specs add to it.

``Sitemap:`` (sitemaps.org), ``Agentmap:`` (ARD: an AI catalog) and ``schemaMap:`` (NLWeb: a
sitemap-format list of JSON-LD files) are collected; ``Crawl-delay`` is honoured up to a cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protego import Protego

ROBOTS_MAX_BYTES = 512 * 1024  # RFC 9309 2.5: parse at least 500 KiB, ignore the rest
MAX_CRAWL_DELAY = 30.0  # a longer Crawl-delay skips the site (StormCrawler, CCBot)
MAX_LINES = 50  # discovery URLs kept per kind: each one costs a request from the site budget
_EXTRA = {"agentmap": "agentmaps", "schemamap": "schemamaps"}


@dataclass
class Robots:
    """The rules for one origin; ``rules`` None means everything is allowed."""

    rules: Protego | None = None
    sitemaps: list[str] = field(default_factory=list)
    agentmaps: list[str] = field(default_factory=list)
    schemamaps: list[str] = field(default_factory=list)
    crawl_delay: float | None = None
    truncated: bool = False
    # Disallow-all because robots.txt could not be read (RFC 9309 2.3.1.4), not because the
    # owner said so: nothing stored is withdrawn for it.
    unavailable: bool = False

    def allows(self, url: str, agent: str) -> bool:
        return self.rules is None or bool(self.rules.can_fetch(url, agent))


def robots_agent(user_agent: str) -> str:
    """The product token robots.txt groups are matched against (``actiondex``): the crawler's
    and the liveness probes' alike."""
    return user_agent.split("/")[0]


def parse_robots(body: bytes, agent: str) -> Robots:
    truncated = len(body) > ROBOTS_MAX_BYTES
    text = body[:ROBOTS_MAX_BYTES].decode("utf-8", "replace")
    if truncated:  # a rule cut in half would be read as a different rule
        text = text.rsplit("\n", 1)[0]
    rules = Protego.parse(text)
    robots = Robots(
        rules=rules,
        sitemaps=list(rules.sitemaps)[:MAX_LINES],
        crawl_delay=rules.crawl_delay(agent),
        truncated=truncated,
    )
    for line in text.splitlines():
        key, _, value = line.partition(":")
        target = _EXTRA.get(key.strip().lower())
        value = value.split("#", 1)[0].strip()
        found = getattr(robots, target) if target else None
        if found is not None and value and len(found) < MAX_LINES:
            found.append(value)
    return robots


def disallow_all() -> Robots:
    """RFC 9309 2.3.1.4: an unreachable robots.txt means the whole site is off limits."""
    return Robots(rules=Protego.parse("User-agent: *\nDisallow: /\n"), unavailable=True)
