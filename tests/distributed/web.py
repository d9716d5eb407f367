"""A loopback web of N small shops, one server answering by Host header (harness.web),
and the request log turned into what the distributed tests assert: robots.txt fetches per host
and the time spans in which each host was being crawled."""

from __future__ import annotations

import json

from harness.web import LoopbackWeb, Reply, Site, html_reply

PAGE = """<!doctype html><html><head><title>{name}</title>
<script type="application/ld+json">{data}</script></head><body><h1>{name}</h1></body></html>"""


def shop(n: int, crawl_delay: float | None) -> Site:
    name = f"Shop {n}"
    data = {
        "@context": "https://schema.org",
        "@type": "WebSite",
        "name": name,
        "url": f"http://shop{n}.test/",
        "potentialAction": {
            "@type": "SearchAction",
            "name": f"Search shop {n}",
            "description": f"Find products of shop number {n}.",
            "target": f"http://shop{n}.test/search?q={{query}}",
            "query-input": "required name=query",
        },
    }
    robots = "User-agent: *\nDisallow: /private/\n"
    if crawl_delay:
        robots += f"Crawl-delay: {crawl_delay:g}\n"
    return Site(
        paths={
            "/robots.txt": Reply(body=robots.encode(), headers={"Content-Type": "text/plain"}),
            "/": html_reply(PAGE.format(name=name, data=json.dumps(data))),
        }
    )


def shops(count: int, delayed: int = 0, delay: float = 1.0) -> dict[str, Site]:
    """``count`` shops shopN.test; the first ``delayed`` of them ask for a Crawl-delay."""
    return {f"shop{n}.test": shop(n, delay if n < delayed else None) for n in range(count)}


def robots_fetches(web: LoopbackWeb) -> dict[str, int]:
    counts: dict[str, int] = {}
    for host, path, _ in list(web.log):
        if path == "/robots.txt":
            counts[host] = counts.get(host, 0) + 1
    return counts


def request_times(web: LoopbackWeb) -> dict[str, list[float]]:
    """host -> the monotonic times of its requests, in order."""
    times: dict[str, list[float]] = {}
    for host, _path, headers in list(web.log):
        times.setdefault(host, []).append(float(headers["_at"]))
    return {host: sorted(ts) for host, ts in times.items()}
