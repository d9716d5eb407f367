"""Cross-origin endpoints are shown, marked and checked (issue 20, docs/RELIABILITY.md 29):
the default /find returns them, every result says ``origin`` (same | cross) and ``verified``,
a same-origin action ranks first at equal relevance, ``origin=same`` keeps the strict view,
and prepare asks for approval (with the reason) before a call to an unverified other domain
or over plain http."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from registry.calls.prepare import prepare_call
from registry.config import Settings
from registry.index import ActionIndex
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.lookup import action_detail
from registry.store.promotion import promote_site
from tests.helpers.paths import SHARED

SEED_000 = SHARED / "seeds" / "000_280e89f1d2b206bb.txt"


def hacker_news() -> str:
    """Seed 000's Full Example (the Hacker News WebAPI), exactly as printed."""
    if not SEED_000.exists():
        pytest.skip(f"{SEED_000} is absent: the seeds are read in place from ../shared")
    found = re.search(
        r"Full Example \(WebAPI \+ Actions\)\s*(\{.*?\n\})\s*\n", SEED_000.read_text(), re.DOTALL
    )
    assert found, "seed 000 has no Full Example"
    json.loads(found.group(1))  # it is JSON as printed
    return found.group(1)


def crawled(session: Session, origin: str, path: str, body: str | dict[str, Any]) -> None:
    """``body`` served at ``origin + path``, normalised and promoted as a crawl would."""
    text = body if isinstance(body, str) else json.dumps(body)
    doc = RawDocument(url=origin + path, body=text.encode(), content_type="application/json")
    host = origin.split("://", 1)[1]
    promote_site(session, normalise_site(SiteCrawl(host=host, origin=origin, documents=[doc])))


def manifest(site: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": "agent-actions/0.1", "site": site, "actions": actions}


@contextmanager
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    app = create_app(Settings(data_dir=tmp_path), index=index)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def find(test_client: TestClient, q: str, **params: Any) -> list[dict[str, Any]]:
    response = test_client.get("/find", params={"q": q, "limit": 20, **params})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def test_the_hacker_news_example_shows_all_four_actions_marked(
    session: Session, tmp_path: Path
) -> None:
    crawled(session, "https://news.ycombinator.com", "/.well-known/agents.json", hacker_news())
    with client(session, tmp_path) as test_client:
        found = find(test_client, "hacker news stories search submit")
        strict = find(test_client, "hacker news stories search submit", origin="same")
    marks = {r["name"]: (r["origin"], r["verified"]) for r in found}
    assert marks == {
        "top-stories": ("cross", False),
        "new-stories": ("cross", False),
        "search": ("cross", False),
        "submit-story": ("same", True),
    }
    assert [r["name"] for r in strict] == ["submit-story"]
    reads = [r for r in found if r["name"] != "submit-story"]
    assert all(r["needs_approval"] for r in reads)  # an unverified other domain


def test_a_same_origin_action_ranks_first_at_equal_relevance(
    session: Session, tmp_path: Path
) -> None:
    twin = {"title": "Look up a tide table", "method": "GET", "effect": "read"}
    crawled(
        session,
        "https://tides.example",
        "/.well-known/agent-actions.json",
        manifest(
            "tides.example",
            [  # the cross-origin one first, so document order alone would rank it first
                {**twin, "name": "tide_x", "path": "https://tides-partner.test/t"},
                {**twin, "name": "tide_y", "path": "/t"},
            ],
        ),
    )
    with client(session, tmp_path) as test_client:
        found = find(test_client, "tide table")
    assert [(r["name"], r["origin"]) for r in found] == [("tide_y", "same"), ("tide_x", "cross")]


def test_the_same_registrable_domain_is_verified(session: Session, tmp_path: Path) -> None:
    crawled(
        session,
        "https://news.kites.co.uk",
        "/.well-known/agent-actions.json",
        manifest(
            "news.kites.co.uk",
            [
                {"name": "kite_news", "method": "GET", "path": "https://api.kites.co.uk/news"},
                {"name": "kite_other", "method": "GET", "path": "https://kites.org.uk/news"},
            ],
        ),
    )
    with client(session, tmp_path) as test_client:
        found = {r["name"]: r for r in find(test_client, "kite news other")}
    assert (found["kite_news"]["origin"], found["kite_news"]["verified"]) == ("cross", True)
    assert found["kite_news"]["needs_approval"] is False
    assert (found["kite_other"]["origin"], found["kite_other"]["verified"]) == ("cross", False)


def _openapi_naming(site: str) -> dict[str, Any]:
    """An OpenAPI description on the partner's host whose servers name ``site``."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Partner API", "version": "1"},
        "servers": [{"url": "https://api.partner.test"}, {"url": f"https://{site}/partner"}],
        "paths": {},
    }


@pytest.mark.parametrize("partner_first", [False, True])
def test_a_document_on_the_endpoints_host_naming_the_site_verifies_it(
    session: Session, tmp_path: Path, partner_first: bool
) -> None:
    def site() -> None:
        crawled(
            session,
            "https://boats.example",
            "/.well-known/agent-actions.json",
            manifest(
                "boats.example",
                [
                    {"name": "hire_boat", "method": "GET", "path": "https://api.partner.test/b"},
                    {"name": "hire_oar", "method": "GET", "path": "https://api.other.test/o"},
                ],
            ),
        )

    def partner() -> None:
        crawled(
            session, "https://api.partner.test", "/openapi.json", _openapi_naming("boats.example")
        )

    for step in (partner, site) if partner_first else (site, partner):
        step()
    with client(session, tmp_path) as test_client:
        found = {r["name"]: r for r in find(test_client, "hire boat oar")}
    detail = action_detail(session, found["hire_boat"]["id"]) or {}
    assert (found["hire_boat"]["origin"], found["hire_boat"]["verified"]) == ("cross", True)
    assert (found["hire_oar"]["origin"], found["hire_oar"]["verified"]) == ("cross", False)
    assert detail["verified"] is True and detail["origin"] == "cross"


def test_prepare_asks_before_an_unverified_other_domain_or_plain_http(
    session: Session, tmp_path: Path
) -> None:
    crawled(
        session,
        "https://maps.example",
        "/.well-known/agent-actions.json",
        manifest(
            "maps.example",
            [
                {"name": "map_here", "method": "GET", "path": "/map"},
                {"name": "map_away", "method": "GET", "path": "https://tiles.elsewhere.test/m"},
                {"name": "map_plain", "method": "GET", "path": "http://maps.example/plain"},
            ],
        ),
    )
    with client(session, tmp_path) as test_client:
        ids = {r["name"]: r["id"] for r in find(test_client, "map here away plain")}
    calls = {name: prepare_call(action_detail(session, i) or {}, {}) for name, i in ids.items()}
    assert (calls["map_here"]["needs_approval"], calls["map_here"]["approval_reasons"]) == (
        False,
        [],
    )
    assert calls["map_away"]["needs_approval"] is True
    assert ["another domain" in r for r in calls["map_away"]["approval_reasons"]] == [True]
    assert calls["map_plain"]["needs_approval"] is True
    assert ["not https" in r for r in calls["map_plain"]["approval_reasons"]] == [True]
