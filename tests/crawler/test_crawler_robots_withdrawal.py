"""robots.txt withdraws what it now disallows, on a real loopback crawl: a site whose
robots.txt turns to ``Disallow: /`` loses its actions at the next crawl (a history entry
"robots"), pages it no longer lets us find included, and /find stops finding them; a site
whose robots.txt answers 503 keeps everything (RFC 9309 disallow-all is no word of the owner's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select, update
from sqlalchemy.orm import Session

from harness.styles import agent_actions, jsonld_page
from harness.web import LoopbackWeb, Reply, html_reply, json_reply
from harness.web import Site as WebSite
from registry.db.tables import Site, SiteHistory
from registry.model.urls import key_host
from tests.helpers.cli import run
from tests.hostile.run import action_names, crawl

pytestmark = pytest.mark.timeout(600)
ALLOW = b"User-agent: *\nAllow: /\n"
WELL_KNOWN = "/.well-known/agent-actions.json"


def _site(web: LoopbackWeb, host: str, name: str, robots: list[Reply]) -> None:
    origin = web.url(host)[:-1]
    sitemap = (
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/'
        f'0.9"><url><loc>{origin}/deep/page</loc></url></urlset>'
    ).encode()
    robots[0].body = bytes(robots[0].body) + f"Sitemap: {origin}/sitemap.xml\n".encode()
    web.sites[host] = WebSite(
        {
            "/robots.txt": robots,
            WELL_KNOWN: json_reply(agent_actions(name)),
            "/sitemap.xml": Reply(body=sitemap, headers={"Content-Type": "application/xml"}),
            "/deep/page": html_reply(jsonld_page(origin, f"deep_{name}")),
        }
    )


def _a_day_later(data_dir: Path) -> None:
    """The crawler keeps robots.txt 24 h (RFC 9309 2.4): age what it remembers by 25 h."""
    engine = create_engine(f"sqlite:///{data_dir / 'actiondex.db'}")
    with Session(engine) as session, session.begin():
        for site in session.scalars(select(Site)):
            state = dict(site.crawl_state or {})
            for key in ("robots", "probe"):
                if isinstance(state.get(key), dict):
                    state[key] = {**state[key], "at": state[key]["at"] - 25 * 3600}
            session.execute(update(Site).where(Site.id == site.id).values(crawl_state=state))
    engine.dispose()


def _history(data_dir: Path) -> dict[str, list[tuple[str, list[str], int, int | None]]]:
    engine = create_engine(f"sqlite:///{data_dir / 'actiondex.db'}")
    with Session(engine) as session:
        rows = session.execute(
            select(Site.host, SiteHistory).join_from(SiteHistory, Site).order_by(SiteHistory.id)
        ).all()
        found: dict[str, list[tuple[str, list[str], int, int | None]]] = {}
        for host, entry in rows:
            found.setdefault(key_host(host), []).append(
                (entry.reason, entry.removed, entry.actions, entry.run_id)
            )
    engine.dispose()
    return found


def _found(data_dir: Path, query: str) -> set[str]:
    proc = run(data_dir, "find", query, "--json", "--origin", "any")
    assert proc.returncode == 0, proc.stderr
    return {key_host(result["site"]) for result in json.loads(proc.stdout)["results"]}


def test_disallow_withdraws_503_keeps_and_a_crawl_brings_a_removed_site_back(
    tmp_path: Path,
) -> None:
    web = LoopbackWeb({})
    _site(
        web,
        "closing.test",
        "ship_parcel",
        [Reply(body=ALLOW), Reply(body=b"User-agent: *\nDisallow: /\n")],
    )
    _site(web, "flaky.test", "rent_bike", [Reply(body=ALLOW), Reply(503, ALLOW)])
    with web:
        targets = (web.url("closing.test"), web.url("flaky.test"))
        first: dict[str, Any] = crawl(tmp_path, web, *targets)
        assert action_names(tmp_path) == {
            "closing.test": {"ship_parcel", "deep_ship_parcel"},
            "flaky.test": {"rent_bike", "deep_rent_bike"},
        }, first["stderr"][-2000:]
        assert _found(tmp_path, "ship parcel") == {"closing.test"}
        _a_day_later(tmp_path)
        asked_before = len(web.requests("closing.test"))
        second = crawl(tmp_path, web, *targets)
        asked = web.requests("closing.test")[asked_before:]
        _check_second(tmp_path, second, asked)
        # An operator removes flaky.test; an explicit crawl brings it back (robots.txt is
        # readable again: the 503 repeats, for the crawler's retries too, until now).
        web.sites["flaky.test"].paths["/robots.txt"] = Reply(body=ALLOW)
        assert run(tmp_path, "sites", "remove", "flaky.test").returncode == 0
        assert "flaky.test" not in action_names(tmp_path)
        third = crawl(tmp_path, web, web.url("flaky.test"))
    assert third["per_site"]["flaky.test"]["changed"], third["stderr"][-2000:]
    assert action_names(tmp_path)["flaky.test"] == {"rent_bike", "deep_rent_bike"}
    assert [e[:2] for e in _history(tmp_path)["flaky.test"]] == [
        ("crawl", []),
        ("removed", ["deep_rent_bike", "rent_bike"]),
        ("crawl", []),
    ]
    assert _found(tmp_path, "rent bike") == {"flaky.test"}


def _check_second(tmp_path: Path, second: dict[str, Any], asked: list[str]) -> None:
    assert asked == ["/robots.txt"]  # Disallow: / -- nothing else was asked for
    assert second["per_site"]["closing.test"]["changed"]
    names = action_names(tmp_path)
    assert "closing.test" not in names  # the page it did not rediscover went too
    assert names["flaky.test"] == {"rent_bike", "deep_rent_bike"}
    assert second["per_site"]["flaky.test"]["errors"] == ["robots-unavailable"]
    history = _history(tmp_path)
    (_, _, _, run1), (*robots, run2) = history["closing.test"]
    assert robots == ["robots", ["deep_ship_parcel", "ship_parcel"], 0]
    assert run1 is not None and run2 is not None and run2 > run1  # each names its crawl run
    assert [reason for reason, *_ in history["flaky.test"]] == ["crawl"]
    assert _found(tmp_path, "ship parcel") == set()  # the index followed the store
    assert _found(tmp_path, "rent bike") == {"flaky.test"}
