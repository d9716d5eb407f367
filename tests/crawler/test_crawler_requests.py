"""Requests per site, first crawl and recrawl (issue 23.3), counted on a loopback web.

A recrawl comes when the site is due, a day or more later (ACTIONDEX_RECRAWL_INITIAL): the
test ages what the store remembers of each site (``sites.crawl_state``) by 25 hours between
crawls, as the day would. The first crawl probes every path; the recrawl of an unchanged site
publishing one manifest costs at most 5 requests, still conditional; a path that robots.txt,
a Link header or a page points to is asked at once, remembered 404 or not; a stored document
that went away is asked every crawl (its 404s count towards its removal)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, Site, html_reply, json_reply
from registry.formats import legacy_paths, well_known_paths
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(400)
DAY = 86400.0
MANIFEST = "/.well-known/agent-actions.json"
XML = {"Content-Type": "application/xml"}
PLAIN = "<html><head><title>home</title></head><body>hello</body></html>"


def aged(value: Any, seconds: float) -> Any:
    """The crawl memory as it reads ``seconds`` later: every time in it moved back."""
    if isinstance(value, dict):
        return {
            k: v - seconds if k == "at" and isinstance(v, int | float) else aged(v, seconds)
            for k, v in value.items()
        }
    return value


def age_memory(data: Path, seconds: float) -> None:
    engine = create_engine(f"sqlite:///{data / 'actiondex.db'}")
    with engine.begin() as conn:
        rows = conn.execute(text("SELECT id, crawl_state FROM sites")).all()
        for site_id, state in rows:
            if state:
                moved = aged(json.loads(state), seconds)
                if isinstance(moved.get("missing"), dict):  # the older form: url -> time
                    moved["missing"] = {
                        u: t - seconds if isinstance(t, int | float) else t
                        for u, t in moved["missing"].items()
                    }
                conn.execute(
                    text("UPDATE sites SET crawl_state = :s WHERE id = :i"),
                    {"s": json.dumps(moved), "i": site_id},
                )
    engine.dispose()


def asked(web: LoopbackWeb, since: int, host: str) -> list[tuple[str, dict[str, str]]]:
    return [(path, headers) for h, path, headers in web.log[since:] if h == host]


def test_a_recrawl_asks_again_only_what_may_have_changed(tmp_path: Path) -> None:
    web = LoopbackWeb({})
    web.sites["one.test"] = Site(
        {MANIFEST: json_reply(agent_actions("one_0")), "/": html_reply(PLAIN)}
    )
    web.sites["pointed.test"] = Site({"/": html_reply(PLAIN)})
    web.sites["gone.test"] = Site({MANIFEST: json_reply(agent_actions("gone_0"))})
    targets = [web.url(h) for h in web.sites]
    with web:
        first = crawl(tmp_path, web, *targets)
        assert first["per_site"]["one.test"]["actions"] == 1, first["per_site"]
        firsts = {h: asked(web, 0, h) for h in web.sites}
        # The first crawl probes every path.
        paths = {p for p, _ in firsts["one.test"]}
        guesses = set(well_known_paths()) - set(legacy_paths().values())
        assert guesses | {"/robots.txt", "/sitemap.xml"} <= paths, paths
        assert any("actiondex-probe" in p for p in paths)

        # A day later pointed.test publishes a manifest at a path that answered 404 and
        # points at it from its home page (a Link header), and at a sitemap (which answered
        # 404 too) from its robots.txt.
        web.sites["pointed.test"].paths.update(
            {
                "/": html_reply(PLAIN + " ", Link=f'<{MANIFEST}>; rel="describedby"'),
                "/robots.txt": Reply(body=b"User-agent: *\nSitemap: /sitemap.xml\n"),
                "/sitemap.xml": Reply(body=b"<urlset></urlset>", headers=XML),
                MANIFEST: json_reply(agent_actions("pointed_0")),
            }
        )
        web.sites["gone.test"].paths.clear()  # its manifest went away
        later = []
        for _ in range(3):  # a day and an hour later, three times
            age_memory(tmp_path, DAY + 3600)
            since = len(web.log)
            later.append(crawl(tmp_path, web, *targets))
            later[-1]["asked"] = {h: asked(web, since, h) for h in web.sites}
    second, again, third, fourth = later[0], later[0]["asked"], later[1]["asked"], later[2]["asked"]

    counts = {h: [len(firsts[h]), *(len(c["asked"][h]) for c in later)] for h in web.sites}
    print("requests per site, first crawl then one a day later each:", counts)
    # one.test: robots.txt (a day old: asked again, RFC 9309), the catch-all probe, the
    # homepage and the manifest (conditional: the store has its ETag).
    assert len(again["one.test"]) <= 5, again["one.test"]
    assert "one.test" not in second["changed_sites"]
    conditional = {p for p, headers in again["one.test"] if "If-None-Match" in headers}
    assert MANIFEST in conditional, again["one.test"]
    # Two days after their 404, the guesses are asked once more; then not for four days.
    assert len(third["one.test"]) == len(firsts["one.test"]), third["one.test"]
    assert len(fourth["one.test"]) <= 5, fourth["one.test"]
    # pointed.test: what its Link header and its robots.txt name is asked at once.
    assert {MANIFEST, "/sitemap.xml"} <= {p for p, _ in again["pointed.test"]}, again
    assert second["per_site"]["pointed.test"]["actions"] == 1, second["per_site"]
    # gone.test: its stored manifest is asked on every crawl.
    assert MANIFEST in {p for p, _ in again["gone.test"]}
    assert MANIFEST in {p for p, _ in third["gone.test"]}
    assert MANIFEST in {p for p, _ in fourth["gone.test"]}
