"""The crawler's pure helpers: robots, sitemaps, links, Retry-After, memory. No network."""

from __future__ import annotations

import gzip
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from crawler.links import header_links, html_links, pick_pages
from crawler.memory import MISSING_FIRST, MISSING_MAX, TTL, Memory, missing_wait
from crawler.retry import retry_after
from crawler.robots import ROBOTS_MAX_BYTES, Robots, disallow_all, parse_robots
from crawler.sitemaps import MAX_URLS, SitemapError, parse_sitemap
from crawler.sitestate import SiteState
from registry.model.schemas import SiteCrawl
from registry.model.urls import a_label, mixed_script_label, site_of


def test_robots_collects_discovery_lines_and_crawl_delay() -> None:
    robots = parse_robots(
        b"User-agent: *\nCrawl-delay: 4\nDisallow: /private\n"
        b"Sitemap: https://a.test/s.xml\nAgentmap: /ard.json # ARD\n"
        b"schemaMap: https://a.test/schemamap.xml\n",
        "actiondex",
    )
    assert robots.sitemaps == ["https://a.test/s.xml"]
    assert robots.agentmaps == ["/ard.json"] and robots.schemamaps[0].endswith("schemamap.xml")
    assert robots.crawl_delay == 4
    assert not robots.allows("https://a.test/private/x", "actiondex")
    assert robots.allows("https://a.test/", "actiondex")


def test_stored_documents_robots_now_disallows_are_noted_once() -> None:
    origin = "https://a.test"
    stored = [
        f"{origin}/private/page",
        f"{origin}/open",
        "https://specs.test/private/api",
        f"{origin}/private/again",
    ]

    def noted(robots: Robots) -> list[str]:
        site = SiteState(SiteCrawl(host="a.test", origin=origin), pages_left=5, robots=robots)
        site.note(f"{origin}/private/again", "robots-disallowed", "met while crawling")
        site.note_withdrawn(stored, "actiondex")
        return [f.url for f in site.crawl.failures if f.code == "robots-disallowed"]

    rules = parse_robots(b"User-agent: *\nDisallow: /private\n", "actiondex")
    # Another host's document is its own robots.txt's business; one noted already stays one.
    assert noted(rules) == [f"{origin}/private/again", f"{origin}/private/page"]
    assert noted(disallow_all()) == [f"{origin}/private/again"]  # unavailable: no withdrawal
    assert noted(Robots()) == [f"{origin}/private/again"]  # 404: everything allowed


def test_robots_past_512_kib_is_ignored() -> None:
    body = b"User-agent: *\nDisallow: /a\n" + b"#" * ROBOTS_MAX_BYTES + b"\nDisallow: /\n"
    robots = parse_robots(body, "actiondex")
    assert robots.truncated and robots.allows("https://a.test/b", "actiondex")


def test_robots_pattern_matching_is_not_exponential() -> None:
    robots = parse_robots(b"User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b\n", "x")
    started = time.perf_counter()
    robots.allows("https://a.test/" + "a" * 2000, "x")
    assert time.perf_counter() - started < 0.05


def test_sitemap_forms() -> None:
    xml = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc> https://a.test/1 </loc></url><url><loc>https://a.test/2</loc></url>"
        b"</urlset>"
    )
    assert parse_sitemap(xml).locs == ["https://a.test/1", "https://a.test/2"]
    assert parse_sitemap(gzip.compress(xml)).locs == ["https://a.test/1", "https://a.test/2"]
    index = parse_sitemap(
        b"<sitemapindex><sitemap><loc>https://a.test/s</loc></sitemap></sitemapindex>"
    )
    assert index.is_index and index.locs == ["https://a.test/s"]
    assert parse_sitemap(b"https://a.test/x\nnot a url\n").locs == ["https://a.test/x"]


def test_sitemap_limits() -> None:
    many = parse_sitemap(b"".join(b"https://a.test/%d\n" % i for i in range(MAX_URLS + 1)))
    assert len(many.locs) == MAX_URLS and many.dropped == 1
    with pytest.raises(SitemapError) as dtd:
        parse_sitemap(
            b'<!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;</loc></url></urlset>'
        )
    assert dtd.value.code == "xml-dtd-forbidden"
    with pytest.raises(SitemapError) as bomb:
        parse_sitemap(gzip.compress(b"\0" * (51 * 1024 * 1024), 1))
    assert bomb.value.code == "too-large"


def test_links_from_headers_and_tags() -> None:
    headers = [
        b'</cat>; rel="api-catalog", </style.css>; rel=stylesheet',
        b"<https://b.test/spec.json>; rel=service-desc; type=application/json",
    ]
    assert header_links(headers, "https://a.test/x") == [
        "https://a.test/cat",
        "https://b.test/spec.json",
    ]
    page = (
        b'<html><head><link rel="describedby" type="application/ld+json" href="/d.json">'
        b'<link rel="icon" href="/i.png"><link rel="AI-Catalog" href="c.json"></head></html>'
    )
    assert html_links(page, "https://a.test/p/") == [
        "https://a.test/d.json",
        "https://a.test/p/c.json",
    ]


def test_pick_pages_covers_page_types_first() -> None:
    urls = [f"https://a.test/p/{i}" for i in range(10)] + [
        "https://a.test/search",
        "https://a.test/c/1",
    ]
    picked = pick_pages(urls, 3)
    assert picked == ["https://a.test/p/0", "https://a.test/search", "https://a.test/c/1"]
    assert len(pick_pages(urls, 50)) == 12


def test_retry_after_forms() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after(b"120") == 120
    assert retry_after(b"Thu, 01 Jan 2026 00:00:30 GMT", now) == 30
    assert retry_after(b"soon") is None and retry_after(None) is None


def test_memory_remembers_for_a_day_and_reports_changes() -> None:
    memory = Memory(now=1000.0)
    assert memory.robots() is None and memory.state() is None
    memory.remember_robots(200, b"User-agent: *\n")
    memory.remember_missing("https://a.test/x")
    state = memory.state()
    assert state is not None
    later = Memory(state, now=1000.0 + TTL - 1)
    assert later.robots() == (200, b"User-agent: *\n") and later.missing("https://a.test/x")
    assert later.state() is None  # nothing new: nothing to write
    stale = Memory(state, now=1000.0 + TTL + 1)
    assert stale.robots() is None  # robots.txt: a day at most (RFC 9309)
    assert stale.missing("https://a.test/x")  # a 404: its own, longer schedule (issue 23.3)
    assert not Memory(state, now=1000.0 + MISSING_FIRST + 1).missing("https://a.test/x")


def test_a_path_missing_again_and_again_is_asked_less_and_less_often() -> None:
    url, now = "https://a.test/.well-known/mcp.json", 1000.0
    waits = []
    state: dict[str, Any] | None = {"missing": {url: now}}  # the older form: one miss at `now`
    for _ in range(5):
        wait = next(
            w for w in range(0, 30 * 86400, 3600) if not Memory(state, now=now + w).missing(url)
        )
        waits.append(wait / 86400)
        now += wait
        memory = Memory(state, now=now)
        memory.remember_missing(url)
        state = memory.state()
    assert waits == [2, 4, 7, 7, 7], waits  # days: MISSING_FIRST, doubling, MISSING_MAX at most
    assert missing_wait(1) == MISSING_FIRST and missing_wait(50) == MISSING_MAX
    found = Memory(state, now=now)
    found.forget_missing(url)  # it answered 200: guessed as a new path again
    assert not found.missing(url) and found.state() == {"missing": {}}


def test_site_budget_refuses_further_requests_once() -> None:
    state = SiteState(
        SiteCrawl(host="a.test", origin="https://a.test"), pages_left=0, requests_left=1
    )
    assert state.admit("https://a.test/1")
    assert not state.admit("https://a.test/1")  # seen: deduped, not a budget problem
    assert not state.admit("https://a.test/2") and not state.admit("https://a.test/3")
    assert [f.code for f in state.crawl.failures] == ["site-budget"]
    state = SiteState(
        SiteCrawl(host="a.test", origin="https://a.test"),
        pages_left=0,
        deadline=time.monotonic() - 1,
    )
    assert not state.admit("https://a.test/")


def test_a_site_that_never_finished_is_reported_not_dropped() -> None:
    from crawler.pipelines import SiteRow
    from crawler.run import CrawlSummary, _report_unfinished

    summary = CrawlSummary()
    summary.add(SiteRow(host="a.test", actions=2))
    _report_unfinished(["a.test", "b.test", "b.test"], summary)
    assert [(r.host, r.errors) for r in summary.per_site] == [
        ("a.test", []),
        ("b.test", ["crawl-incomplete"]),
    ]
    assert summary.sites == 2 and summary.errors == 1


def test_hosts_are_a_labels_and_mixed_scripts_are_named() -> None:
    assert a_label("PАYPAL.test.") == "xn--pypal-4ve.test"  # Cyrillic А, case-mapped
    assert a_label("Bücher.Example") == "xn--bcher-kva.example"
    assert site_of("https://bücher.example/x") == "xn--bcher-kva.example"
    assert mixed_script_label("xn--pypal-4ve.test") == "pаypal"
    assert mixed_script_label("xn--bcher-kva.example") is None  # Latin with an umlaut
    assert mixed_script_label(a_label("日本語テスト.jp")) is None  # Han + Katakana: allowed
    assert mixed_script_label(a_label("тест.test")) is None  # one script (whole-script
    # confusables such as an all-Cyrillic "аррӏе" need UTS #39's data: not detected)
    with pytest.raises(ValueError, match="internationalised"):
        a_label("a\u200db.test")  # a joiner outside any context that allows it
