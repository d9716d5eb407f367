"""Every discovery path, end to end on loopback: each style of site publishes its actions one
way, and the crawl must find every one; a recrawl sends conditional GETs and writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from harness.styles import STYLES, jsonld_page, site
from harness.web import LoopbackWeb, Reply, Site, html_reply
from tests.hostile.run import action_names, crawl

pytestmark = pytest.mark.timeout(400)
SPECS = "specs.test"
CROSS = ("ai_plugin", "link_header", "wildcard")  # styles whose references live on SPECS


def _web() -> tuple[LoopbackWeb, dict[str, set[str]]]:
    web = LoopbackWeb({})
    specs = Site()
    expected = {}
    for style in STYLES:
        host = f"{style.replace('_', '-')}.test"
        other = web.url(SPECS)[:-1] if style in CROSS else ""
        built, expected[host] = site(style, web.url(host)[:-1], 1, other)
        if style in CROSS:
            specs.paths.update({p: r for p, r in built.paths.items() if p.startswith("/specs/")})
        web.sites[host] = built
    web.sites[SPECS] = specs
    web.sites["catchall.test"] = Site(
        fallback=html_reply(jsonld_page(web.url("catchall.test")[:-1], "home_catchall"))
    )
    web.sites["polite.test"] = Site(
        {
            "/robots.txt": Reply(
                body=(
                    b"User-agent: *\nCrawl-delay: 1\nDisallow: /.well-known/\nDisallow: /openapi\n"
                    b"Disallow: /swagger\nDisallow: /server\n"
                )
            )
        }
    )
    web.sites["closed.test"] = Site({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /\n")})
    many = [f"/{kind}/{i}" for kind in ("p", "c") for i in range(20)] + ["/search"]
    urlset = "".join(f"<url><loc>{web.url('pages.test', p)}</loc></url>" for p in many)
    web.sites["pages.test"] = Site(
        {
            "/sitemap.xml": Reply(body=f"<urlset>{urlset}</urlset>".encode()),
            **{
                p: html_reply(
                    jsonld_page(web.url("pages.test")[:-1], p.strip("/").replace("/", "_"))
                )
                for p in many
            },
        }
    )
    return web, expected


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("discovery")
    web, expected = _web()
    with web:
        targets = data / "targets.txt"
        hosts = [h for h in web.sites if h != SPECS]
        targets.write_text("# one per line\n" + "\n".join(web.url(h) for h in hosts) + "\n")
        first = crawl(data, web, extra=("--file", str(targets), "--max-pages", "3"))
        names = action_names(data)
        seen = len(web.log)
        second = crawl(data, web, extra=("--file", str(targets), "--max-pages", "3"))
        recrawl_log = web.log[seen:]
    return {
        "first": first,
        "second": second,
        "names": names,
        "expected": expected,
        "log": web.log[:seen],
        "recrawl_log": recrawl_log,
        "after": action_names(data),
    }


@pytest.mark.parametrize("style", STYLES)
def test_every_publishing_style_is_found(crawled: dict[str, Any], style: str) -> None:
    host = f"{style.replace('_', '-')}.test"
    found = crawled["names"].get(host, set())
    assert crawled["expected"][host] <= found, (found, crawled["first"]["per_site"][host])


def test_catch_all_site_is_not_taken_for_manifests(crawled: dict[str, Any]) -> None:
    row = crawled["first"]["per_site"]["catchall.test"]
    assert "catch-all" in row["errors"]
    assert crawled["names"]["catchall.test"] == {"home_catchall"}
    assert row["documents"] == 1  # the homepage; no well-known answer was kept


def test_pages_are_capped_and_cover_page_types(crawled: dict[str, Any]) -> None:
    pages = [
        p
        for h, p, _ in crawled["log"]
        if h == "pages.test"
        and p.count("/") >= 1
        and p not in ("/", "/sitemap.xml", "/robots.txt")
        and "well-known" not in p
        and p.startswith(("/p/", "/c/", "/search"))
    ]
    assert len(pages) == 3
    assert {p.split("/")[1] for p in pages} == {"p", "c", "search"}


# Hosts whose endpoints (an A2A agent, MCP servers) the liveness probes ask after each crawl.
PROBED = {"a2a.test", "mcp.test", "agentmap.test"}


def test_recrawl_is_conditional_and_writes_nothing(crawled: dict[str, Any]) -> None:
    second = crawled["second"]
    assert second["changed_sites"] == [], second["changed_sites"]
    assert set(second["per_site"]) == set(crawled["first"]["per_site"])
    assert crawled["after"] == crawled["names"]
    conditional = [p for _, p, headers in crawled["recrawl_log"] if "If-None-Match" in headers]
    assert "/.well-known/agent-actions.json" in conditional and "/" in conditional
    # robots.txt, the catch-all probe and the 404s of the first crawl are remembered a day
    # (a Crawl-delay is applied when robots.txt arrives, so polite.test is asked again); the
    # liveness probes read robots.txt once a run of each host whose endpoints they ask
    # (crawler/probes/polite.py), and nothing else of it
    log = [(h, p) for h, p, _ in crawled["recrawl_log"] if h != "polite.test"]
    probes_robots = [h for h, p in log if p == "/robots.txt" and h in PROBED]
    assert len(probes_robots) == len(set(probes_robots)), probes_robots
    asked = {p for h, p in log if not (p == "/robots.txt" and h in PROBED)}
    assert "/robots.txt" not in asked and "/.well-known/mcp.json" not in asked
    assert not any("actiondex-probe" in p for p in asked)


def test_crawl_delay_is_honoured(crawled: dict[str, Any]) -> None:
    times = sorted(float(h["_at"]) for host, _, h in crawled["log"] if host == "polite.test")
    assert len(times) >= 3
    # Times are taken when the server's handler thread starts, which a loaded machine can
    # delay by most of a second for any request (seen: one gap of 0.04 s; at load 12 a median
    # gap of 0.83 s over three gaps). A late thread shortens one gap only by lengthening the
    # one before it, so the mean gap (the span over the gaps) moves only by the first and last
    # requests' lateness; a crawler ignoring Crawl-delay has a mean gap far below 1 s.
    assert (times[-1] - times[0]) / (len(times) - 1) >= 0.9, times
