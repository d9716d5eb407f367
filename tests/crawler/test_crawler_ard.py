"""ARD discovery on loopback (ARD section 5.1): ``/.well-known/ard.json`` first, the legacy
``ai-catalog.json`` only when it is missing, ``<link rel="ard">`` on a page; then the crawled
entries are served by /ard as their publishers wrote them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from api.app import create_app
from harness.web import LoopbackWeb, Site, html_reply, json_reply
from registry.config import Settings
from tests.hostile.run import action_names, crawl

pytestmark = pytest.mark.timeout(300)
WELL_KNOWN, LEGACY = "/.well-known/ard.json", "/.well-known/ai-catalog.json"


def catalog(host: str, name: str, **extra: Any) -> str:
    entry = {
        "identifier": f"urn:ai:{host}:agent:{name}",
        "displayName": name.title(),
        "type": "application/A2A-Agent-Card+json",
        "url": f"https://{host}/{name}.json",
        "description": f"The {name} agent.",
        **extra,
    }
    return json.dumps({"entries": [entry]})


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("ard-crawl")
    web = LoopbackWeb(
        {
            "both.test": Site(
                {
                    WELL_KNOWN: json_reply(catalog("both.test", "current")),
                    LEGACY: json_reply(catalog("both.test", "old")),
                }
            ),
            "legacy.test": Site({LEGACY: json_reply(catalog("legacy.test", "elder"))}),
            "linked.test": Site(
                {
                    "/": html_reply(
                        '<html><head><link rel="ard" href="/entries/all.json">'
                        "</head><body>hi</body></html>"
                    ),
                    "/entries/all.json": json_reply(
                        catalog("linked.test", "linked", **{"ex:tier": "gold"})
                    ),
                }
            ),
        }
    )
    with web:
        hosts = list(web.sites)
        summary = crawl(data, web, *[web.url(h) for h in hosts])
        log = list(web.log)
    return {"data": data, "summary": summary, "log": log, "names": action_names(data)}


def _site(names: dict[str, set[str]], host: str) -> set[str]:
    return next(found for h, found in names.items() if h.split(":")[0] == host)


def test_well_known_first_and_the_legacy_path_only_when_it_is_missing(
    crawled: dict[str, Any],
) -> None:
    asked = {(h.split(":")[0], p) for h, p, _ in crawled["log"]}
    assert ("both.test", WELL_KNOWN) in asked and ("both.test", LEGACY) not in asked
    assert {("legacy.test", WELL_KNOWN), ("legacy.test", LEGACY)} <= asked
    assert _site(crawled["names"], "both.test") == {"current"}
    assert _site(crawled["names"], "legacy.test") == {"elder"}


def test_a_rel_ard_link_is_followed(crawled: dict[str, Any]) -> None:
    assert _site(crawled["names"], "linked.test") == {"linked"}


def test_crawled_entries_are_served_as_written(crawled: dict[str, Any], tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{crawled['data'] / 'actiondex.db'}")
    app = create_app(Settings(data_dir=crawled["data"]), engine=engine)
    with TestClient(app) as client:
        listed = client.get("/ard/agents", params={"pageSize": 100}).json()["items"]
        linked = next(e for e in listed if e["displayName"] == "Linked")
        assert linked["identifier"].startswith("urn:air:linked.test")  # urn:ai: normalised
        assert linked["type"] == "application/a2a-agent-card+json"
        assert linked["ex:tier"] == "gold"  # a term of the publisher's, kept
        page = client.post(
            "/ard/search", json={"query": {"text": "linked agent", "filter": {"ex:tier": "gold"}}}
        ).json()
        assert [r["identifier"] for r in page["results"]] == [linked["identifier"]]
    engine.dispose()
