"""GET /sites/{host}/manifest's export: a site's actions and flows, whatever formats it
publishes, as one agent-actions/0.1 manifest that our own validator reads with no error."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy.orm import Session

from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.lookup import site_detail, site_manifest
from registry.store.promotion import promote_site
from registry.validate import validate_document
from tests.helpers.stores import add_site, store_fixture

# One fixture site per format that publishes actions (and flows, for agent-actions, Wildcard
# agents.json and the ad-hoc agents.json dialects).
SITES = [
    "agent-actions/full-shop.json",
    "wildcard-agents-json/harbour-flows.json",
    "agents-json/flows-steps.json",
    "openapi/petstore-31.json",
    "openapi/swagger2.yaml",
    "ai-plugin/tide-plugin.json",
    "schemaorg/webmcp-forms.html",
    "schemaorg/restaurant-reserve.html",
    "schemaorg/webapi-profile.json",
    "a2a/card-03.json",
    "mcp/server-card-tools.json",
    "api-catalog/linkset.json",
    "ard/catalog.json",
]
WITH_FLOWS = {
    "agent-actions/full-shop.json",
    "wildcard-agents-json/harbour-flows.json",
    "agents-json/flows-steps.json",
}


def read_back(export: dict[str, Any]) -> Any:
    url = f"{export['site']['url']}/.well-known/agent-actions.json"
    return validate_document(RawDocument(url=url, body=json.dumps(export).encode()))


@pytest.mark.parametrize("fixture", SITES)
def test_the_export_of_every_format_validates_with_no_error(session: Session, fixture: str) -> None:
    host = store_fixture(session, fixture)
    detail = site_detail(session, host)
    assert detail is not None and detail["actions"], f"{fixture} stored no action"
    export = site_manifest(session, host)
    assert export is not None and export["version"] == "agent-actions/0.1"
    report = read_back(export)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    assert errors == [] and report.format == "agent-actions"
    # Nothing lost on the way: every action and flow comes back, saying the same.
    assert len(report.actions) == len(detail["actions"])
    assert len(report.flows) == len(detail["flows"])
    assert bool(report.flows) == (fixture in WITH_FLOWS)
    stored = {(a["name"], a["effect"], a["method"], a["endpoint"]) for a in detail["actions"]}
    read = {(a.name, a.effect, a.method, a.endpoint) for a in report.actions}
    assert read == stored


def manifest(actions: list[dict[str, Any]], flows: list[dict[str, Any]] | None = None) -> bytes:
    return json.dumps(
        {
            "schema": "agent-actions/0.1",
            "site": "https://two.example",
            "actions": actions,
            "flows": flows or [],
        }
    ).encode()


def test_a_name_two_documents_share_is_told_apart_and_flows_follow(session: Session) -> None:
    search = {"name": "search", "method": "GET", "path": "/search{?q}", "effect": "read"}
    pay = {
        "name": "pay",
        "method": "POST",
        "path": "/pay",
        "effect": "spend",
        "cost": {"field": "total", "currency": "eur"},
        "input": {"type": "object", "properties": {"total": {"type": "number"}}},
    }
    flow = {"name": "find_and_pay", "steps": [{"action": "search"}, {"action": "pay"}]}
    first = RawDocument(
        url="https://two.example/.well-known/agent-actions.json", body=manifest([search])
    )
    second = RawDocument(
        url="https://two.example/more/agent-actions.json",
        body=manifest([search | {"path": "/v2/search{?q}"}, pay], [flow]),
    )
    update = normalise_site(
        SiteCrawl(host="two.example", origin="https://two.example", documents=[first, second])
    )
    promote_site(session, update)
    export = site_manifest(session, "TWO.example")
    assert export is not None
    names = {a["name"]: a.get("endpoint") for a in export["actions"]}
    assert names == {
        "search": "https://two.example/search{?q}",
        "pay": "https://two.example/pay",
        "search_2": "https://two.example/v2/search{?q}",
    }
    # The flow of the second document names its own search, renamed.
    assert [s["action"] for s in export["flows"][0]["steps"]] == ["search_2", "pay"]
    report = read_back(export)
    assert not [d for d in report.diagnostics if d.severity != "info"], report.diagnostics
    assert {a.name: a.cost for a in report.actions}["pay"] == {"field": "total", "currency": "EUR"}
    assert [f.name for f in report.flows] == ["find_and_pay"]


def test_an_unknown_site_has_no_export(session: Session) -> None:
    add_site(session, "known.example", [{"name": "search", "title": "Search"}])
    assert site_manifest(session, "unknown.example") is None
    assert site_manifest(session, "not a host!") is None
    assert site_manifest(session, "known.example") is not None


def test_the_export_is_written_as_seed_002_prints_a_manifest(session: Session) -> None:
    """``version`` (not ``schema``) and steps bound ``with`` (not ``bind``), as seed 002 prints
    them; a flow whose step names another document's action is exported, not dropped."""
    search = {"name": "search", "method": "GET", "path": "/search{?q}", "effect": "read"}
    pay = {"name": "pay", "method": "POST", "path": "/pay", "effect": "spend"}
    flow = {
        "name": "find_and_pay",
        "steps": [
            {"action": "search", "with": {"q": "$input.query"}},
            {"action": "pay", "with": {"item": "$steps.0.items.0.id"}},
        ],
    }
    docs = [
        RawDocument(url="https://two.example/.well-known/agent-actions.json", body=manifest([pay])),
        RawDocument(url="https://two.example/more/actions.json", body=manifest([search], [flow])),
    ]
    crawl = SiteCrawl(host="two.example", origin="https://two.example", documents=docs)
    promote_site(session, normalise_site(crawl))
    export = site_manifest(session, "two.example")
    assert export is not None and "schema" not in export
    assert export["version"] == "agent-actions/0.1"
    [exported] = export["flows"]
    assert [(s["action"], s["with"]) for s in exported["steps"]] == [
        ("search", {"q": "$input.query"}),
        ("pay", {"item": "$steps.0.items.0.id"}),
    ]
    assert all("bind" not in s for s in exported["steps"])
    report = read_back(export)
    assert [(s.action, s.bindings) for s in report.flows[0].steps] == [
        ("search", {"q": "$input.query"}),
        ("pay", {"item": "$steps.0.items.0.id"}),
    ]
