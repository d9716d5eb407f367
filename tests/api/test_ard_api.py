"""The ARD Registry API in-process, on SQLite and PostgreSQL: Search, Retrieve, List, Explore
and the well-known catalog over the shop and news sites and two ARD catalogs; every answer
validates against the spec's own schemas (../shared/specs/ard/ard.openapi.yaml)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from registry.config import Settings
from tests.helpers.ard import ard_client, spec_validator

FORECAST = "urn:air:weather.example:server:forecast"
ACTION = "application/vnd.actiondex.action+json"
MCP = "application/mcp-server-card+json"


@pytest.fixture
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    with ard_client(session, tmp_path) as test_client:
        yield test_client


def search(client: TestClient, text: str, **extra: Any) -> dict[str, Any]:
    body = {"query": {"text": text, **extra.pop("query", {})}, **extra}
    response = client.post("/ard/search", json=body)
    assert response.status_code == 200, response.text
    spec_validator("SearchResponse").validate(response.json())
    return response.json()  # type: ignore[no-any-return]


def ids(page: dict[str, Any], key: str = "results") -> list[str]:
    return [entry["identifier"] for entry in page[key]]


def test_publisher_entries_come_back_as_written_with_integer_scores(client: TestClient) -> None:
    page = search(client, "weather forecast tools", pageSize=10)
    first = page["results"][0]
    assert first["identifier"] == FORECAST and first["wx:region"] == ["eu-west", "us-east"]
    assert first["type"] == MCP  # written "Application/MCP-Server-Card+JSON; charset=utf-8"
    assert first["source"] == "http://testserver/ard"
    scores = [r["score"] for r in page["results"]]
    assert all(isinstance(s, int) and 0 <= s <= 100 for s in scores)
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    # urn:ai: and a lone legacy mediaType, spelled as ARD spells them
    alerts = next(r for r in page["results"] if "alerts" in r["identifier"])
    assert alerts["identifier"] == "urn:air:weather.example:agent:alerts"
    assert alerts["type"] == "application/a2a-agent-card+json"


def test_our_actions_are_entries_too(client: TestClient) -> None:
    page = search(client, "add to cart", query={"filter": {"type": ACTION}})
    entry = page["results"][0]
    assert entry["identifier"] == "urn:air:shop.example:action:add_to_cart"
    assert entry["url"].startswith("http://testserver/actions/")
    assert (entry["actiondex:effect"], entry["actiondex:method"]) == ("write", "POST")


@pytest.mark.parametrize(
    ("flt", "context", "expected"),
    [
        ({"type": [MCP]}, None, {FORECAST, "urn:air:weather.example:server:radar"}),
        ({"tags": ["alerts", "nothing"]}, None, {"urn:air:weather.example:agent:alerts"}),
        # namespaced: the query's prefix differs from the publisher's, the IRI is the same
        ({"meteo:region": "us-east"}, {"meteo": "https://weather.example/vocab#"}, {FORECAST}),
        ({"trustManifest.attestations.type": ["SOC2-Type2"]}, None, {FORECAST}),
        ({"publisher": "tools.example"}, None, {"urn:air:tools.example:skill:unit-converter"}),
        ({"type": [MCP], "tags": "alerts"}, None, set()),  # AND across keys
    ],
)
def test_filters(client: TestClient, flt: dict[str, Any], context: Any, expected: set[str]) -> None:
    query = {"filter": flt} | ({"@context": context} if context else {})
    assert (
        set(
            ids(search(client, "weather forecast alerts radar converter", query=query, pageSize=50))
        )
        == expected
    )


def test_our_terms_filter_through_the_index(client: TestClient) -> None:
    spend = search(client, "place the order checkout buy", query={"filter": {"effect": "spend"}})
    # the shop's purchase flow spends too: flows are entries (issue 21)
    assert set(ids(spend)) == {
        "urn:air:shop.example:action:checkout",
        "urn:air:shop.example:flow:purchase",
    }
    posts = search(
        client,
        "subscribe newsletter cart",
        query={"filter": {"actiondex:method": ["post"], "site": "news.example"}},
    )
    assert ids(posts) == ["urn:air:news.example:action:subscribe"]
    assert search(client, "checkout", query={"filter": {"effect": "nonsense"}})["results"] == []


def test_pages_follow_each_other(client: TestClient) -> None:
    everything = ids(search(client, "weather forecast alerts radar", pageSize=100))
    first = search(client, "weather forecast alerts radar", pageSize=3)
    second = search(
        client, "weather forecast alerts radar", pageSize=3, pageToken=first["pageToken"]
    )
    assert ids(first) + ids(second) == everything and len(everything) == 4
    assert "pageToken" not in second
    assert search(client, "weather", federation="referrals")["referrals"] == []


def test_retrieve_is_exact_and_cacheable(client: TestClient) -> None:
    response = client.get(f"/ard/agents/{quote(FORECAST, safe='')}")
    assert response.status_code == 200
    entry = response.json()
    spec_validator("ArdEntry").validate(entry)
    assert entry["identifier"] == FORECAST and not {"score", "source"} & entry.keys()
    assert "max-age" in response.headers["cache-control"]
    again = client.get(
        f"/ard/agents/{quote(FORECAST, safe='')}",
        headers={"If-None-Match": response.headers["etag"]},
    )
    assert again.status_code == 304 and again.headers["etag"] == response.headers["etag"]
    ours = client.get("/ard/agents/" + quote("urn:air:news.example:action:search", safe=""))
    assert ours.json()["displayName"] == "Search articles"


@pytest.mark.parametrize(
    ("identifier", "status", "code"),
    [
        ("urn:air:ard-conformance.invalid:probe:not-found", 404, "NOT_FOUND"),
        ("urn:air:weather.example:server:FORECAST", 404, "NOT_FOUND"),  # case-sensitive
        ("not-a-valid-ard-urn", 400, "INVALID_ARGUMENT"),
        ("urn:air:weather.example", 400, "INVALID_ARGUMENT"),
        ("urn:air:a.example:b/c", 400, "INVALID_ARGUMENT"),
    ],
)
def test_retrieve_refuses(client: TestClient, identifier: str, status: int, code: str) -> None:
    response = client.get(f"/ard/agents/{quote(identifier, safe='')}")
    assert response.status_code == status
    assert response.json() == {"errorCode": code, "message": response.json()["message"]}
    spec_validator("Error").validate(response.json())


def test_list_filters_orders_and_pages(client: TestClient) -> None:
    def listed(**params: Any) -> dict[str, Any]:
        response = client.get("/ard/agents", params=params)
        assert response.status_code == 200, response.text
        spec_validator("ListResponse").validate(response.json())
        return response.json()  # type: ignore[no-any-return]

    everything = listed(pageSize=100)
    assert everything["total"] == len(everything["items"]) and "pageToken" not in everything
    first = listed(pageSize=3)
    rest = listed(pageSize=100, pageToken=first["pageToken"])
    assert ids(first, "items") + ids(rest, "items") == ids(everything, "items")
    mcp = listed(
        filter=f"type = '{MCP},application/a2a-agent-card' AND publisherId = 'weather.example'"
    )
    assert len(mcp["items"]) == 3 and "total" not in mcp
    assert ids(listed(filter="effect = 'spend'"), "items") == [  # actions first, then flows
        "urn:air:shop.example:action:checkout",
        "urn:air:shop.example:flow:purchase",
    ]
    named = listed(filter="displayName = 'STORM'")
    assert ids(named, "items") == ["urn:air:weather.example:agent:alerts"]
    by_name = [e["displayName"] for e in listed(orderBy="displayName DESC", pageSize=100)["items"]]
    assert by_name == sorted(by_name, reverse=True)
    assert listed(filter="updatedAfter > '2999-01-01T00:00:00Z'")["items"] == []
    assert len(listed(filter="createdAfter > '2001-01-01'")["items"]) == everything["total"]
    assert listed(filter="createdAfter > 'yesterday'")["items"] == []  # no date: no match
    namespaced = listed(filter="wx:region = 'us-east' AND tags = \"weather,x\"")
    assert ids(namespaced, "items") == [FORECAST]


@pytest.mark.parametrize(
    "params",
    [
        {"filter": "type ~ 'x'"},
        {"orderBy": "score"},
        {"filter": "effect > 'read'"},
        {"orderBy": "identifier UP"},
        {"pageSize": 101},
        {"pageToken": "abc"},
    ],
)
def test_list_refuses(client: TestClient, params: dict[str, Any]) -> None:
    response = client.get("/ard/agents", params=params)
    assert response.status_code == 400 and response.json()["errorCode"] == "INVALID_ARGUMENT"


def test_explore_counts_facets(client: TestClient) -> None:
    facets = [{"field": f} for f in ("type", "publisher", "effect", "format")]
    response = client.post("/ard/explore", json={"resultType": {"facets": facets}})
    assert response.status_code == 200
    body = response.json()
    spec_validator("ExploreResponse").validate(body)
    types = {b["value"]: b["count"] for b in body["facets"]["type"]["buckets"]}
    assert types[MCP] == 2 and types[ACTION] >= 8
    total = len(client.get("/ard/agents", params={"pageSize": 100}).json()["items"])
    assert sum(b["count"] for b in body["facets"]["publisher"]["buckets"]) == total
    # a facet on no stored column reads every entry; the counts by SQL agree with it
    read = client.post(
        "/ard/explore", json={"resultType": {"facets": [{"field": "tags"}, *facets]}}
    ).json()["facets"]
    assert {b["value"] for b in read["tags"]["buckets"]} >= {"weather", "alerts", "forecast"}
    assert {f: read[f] for f in body["facets"]} == body["facets"]
    narrowed = client.post(
        "/ard/explore",
        json={
            "query": {"text": "weather", "filter": {"tags": "weather"}},
            "resultType": {"facets": [{"field": "type", "limit": 1}]},
        },
    ).json()
    # one each: ties go by value
    assert narrowed["facets"]["type"] == {
        "buckets": [{"value": "application/a2a-agent-card+json", "count": 1}],
        "otherCount": 1,
    }


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/ard/search", {"query": {"text": "x"}, "pageSize": 0}),
        ("/ard/search", {"query": {"text": "x"}, "pageSize": 101}),
        ("/ard/search", {"query": {"filter": {}}}),
        ("/ard/search", {"query": {"text": "x", "filter": {"type": [1]}}}),
        ("/ard/search", {"query": {"text": "x"}, "federation": "everywhere"}),
        ("/ard/search", {"query": {"text": "x"}, "unknown": 1}),
        ("/ard/explore", {"resultType": {"facets": []}}),
    ],
)
def test_bad_bodies_are_invalid_arguments(client: TestClient, path: str, body: Any) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 400, response.text
    assert set(response.json()) == {"errorCode", "message"}
    assert response.json()["errorCode"] == "INVALID_ARGUMENT"


def test_errors_under_ard_keep_the_ard_shape(client: TestClient) -> None:
    assert client.get("/ard/nowhere").json()["errorCode"] == "NOT_FOUND"
    wrong = client.get("/ard/search")
    assert wrong.status_code == 405 and wrong.json()["errorCode"] == "METHOD_NOT_ALLOWED"
    assert "error" in client.get("/nowhere").json()  # elsewhere, ours


@pytest.mark.parametrize("path", ["/.well-known/ard.json", "/.well-known/ai-catalog.json"])
def test_the_registry_describes_itself(client: TestClient, path: str) -> None:
    catalog = client.get(path).json()
    (entry,) = catalog["entries"]
    spec_validator("ArdEntry").validate(entry)
    assert entry["type"] == "application/ai-registry+json"
    assert entry["url"] == "http://testserver/ard"
    assert entry["identifier"] == "urn:air:testserver:registry:actiondex"


def test_too_many_requests_is_said_the_ard_way(session: Session, tmp_path: Path) -> None:
    with ard_client(session, tmp_path, rate_limit=0.001, rate_burst=1) as limited:
        assert limited.get("/ard/agents").status_code == 200
        refused = limited.get("/ard/agents")
        assert refused.status_code == 429 and "retry-after" in refused.headers
        assert refused.json()["errorCode"] == "RATE_LIMIT_EXCEEDED"
        assert "error" in limited.get("/find", params={"q": "cart"}).json()


@pytest.mark.parametrize("key", ["\u000b", " ", "\u00a0", "\u001c"])
def test_a_blank_key_is_what_the_schema_says_a_term_that_matches_nothing(
    client: TestClient, key: str
) -> None:
    """The schema says a key is 1 to 200 characters (issue 25 item 10): a facet or filter key
    of blanks is such a term path, which no entry has, not a 400."""
    explored = client.post("/ard/explore", json={"resultType": {"facets": [{"field": key}]}})
    assert explored.status_code == 200, explored.text
    assert explored.json()["facets"][key]["buckets"] == []
    found = client.post("/ard/search", json={"query": {"text": "weather", "filter": {key: "x"}}})
    assert found.status_code == 200 and found.json()["results"] == []
    document = create_app(Settings(data_dir=Path("/nonexistent"))).openapi()
    key_schema = document["components"]["schemas"]["FacetRequest"]["properties"]["field"]
    assert key_schema["minLength"] == 1 and "pattern" not in key_schema
