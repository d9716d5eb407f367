"""Flows are ARD entries (issue 21): their own media type, with their steps, found by Search in
the order GET /find ranks them, and read by Retrieve, List and Explore. Over the demo web's
sites (actiondex/demo/sites) as the demo stores them, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from api.deps import get_session
from registry.config import Settings
from registry.index import ActionIndex
from registry.model.ard_terms import ACTION_TYPE, FLOW_TYPE
from tests.helpers.ard import spec_validator, store_site

DEMO = Path(__file__).parents[2] / "actiondex" / "demo" / "sites"
QUERY = "buy printer paper"
BUY = "urn:air:office.demo.test:flow:buy_product"


@pytest.fixture
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    for site in sorted(DEMO.iterdir()):
        if not site.is_dir():
            continue
        documents = {"/": (site / "index.html").read_bytes()}
        for path in sorted((site / ".well-known").glob("*.json")):
            documents[f"/.well-known/{path.name}"] = path.read_bytes()
        store_site(session, site.name, documents)
    session.flush()
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    app = create_app(Settings(data_dir=tmp_path, rate_limit=0), index=index)
    app.dependency_overrides[get_session] = lambda: session
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def ard_search(client: TestClient, text: str, **extra: Any) -> dict[str, Any]:
    response = client.post("/ard/search", json={"query": {"text": text}, **extra})
    assert response.status_code == 200, response.text
    spec_validator("SearchResponse").validate(response.json())
    return response.json()  # type: ignore[no-any-return]


def found(client: TestClient, text: str, **params: Any) -> list[str]:
    """GET /find's results as the identifiers of their ARD entries."""
    response = client.get("/find", params={"q": text, **params})
    assert response.status_code == 200, response.text
    return [f"urn:air:{r['site']}:{r['kind']}:{r['name']}" for r in response.json()["results"]]


def ids(page: dict[str, Any], key: str = "results") -> list[str]:
    return [entry["identifier"] for entry in page[key]]


def test_search_finds_the_demo_s_flow_first_as_find_does(client: TestClient) -> None:
    page = ard_search(client, QUERY, pageSize=10)
    assert ids(page)[0] == BUY
    assert ids(page) == found(client, QUERY, limit=10)
    flow = page["results"][0]
    assert flow["type"] == FLOW_TYPE and urlsplit(flow["url"]).path.startswith("/flows/")
    steps = flow["actiondex:steps"]
    assert [s["action"] for s in steps] and all(
        s["identifier"] == f"urn:air:office.demo.test:action:{s['action']}" for s in steps
    )
    # page by page, as /find pages: the same items in the same order
    first = ard_search(client, QUERY, pageSize=3)
    second = ard_search(client, QUERY, pageSize=3, pageToken=first["pageToken"])
    assert ids(first) + ids(second) == found(client, QUERY, limit=3) + found(
        client, QUERY, limit=3, offset=3
    )


def test_retrieve_a_flow_and_its_steps(client: TestClient) -> None:
    response = client.get(f"/ard/agents/{quote(BUY, safe='')}")
    assert response.status_code == 200, response.text
    entry = response.json()
    spec_validator("ArdEntry").validate(entry)
    assert entry["type"] == FLOW_TYPE and entry["actiondex:effect"] == "spend"
    assert client.get(urlsplit(entry["url"]).path).json()["kind"] == "flow"
    for step in entry["actiondex:steps"]:
        got = client.get(f"/ard/agents/{quote(step['identifier'], safe='')}")
        assert got.status_code == 200 and got.json()["type"] == ACTION_TYPE, step
    missing = BUY.replace("buy_product", "no_such_flow")
    assert client.get(f"/ard/agents/{quote(missing, safe='')}").status_code == 404


def test_list_and_explore_count_flows(client: TestClient) -> None:
    everything = client.get("/ard/agents", params={"pageSize": 100}).json()
    spec_validator("ListResponse").validate(everything)
    assert BUY in ids(everything, "items") and everything["total"] == len(everything["items"])
    flows = client.get("/ard/agents", params={"filter": f"type = '{FLOW_TYPE}'"}).json()
    assert BUY in ids(flows, "items")
    assert {e["type"] for e in flows["items"]} == {FLOW_TYPE}
    by_name = [
        e["displayName"]
        for e in client.get(
            "/ard/agents", params={"pageSize": 100, "orderBy": "displayName"}
        ).json()["items"]
    ]
    assert by_name == sorted(by_name) and len(by_name) == everything["total"]
    facets = {"resultType": {"facets": [{"field": "type"}, {"field": "effect"}]}}
    body = client.post("/ard/explore", json=facets).json()
    types = {b["value"]: b["count"] for b in body["facets"]["type"]["buckets"]}
    assert types[FLOW_TYPE] == len(flows["items"]) and sum(types.values()) == everything["total"]
    searched = client.post(
        "/ard/explore",
        json={"query": {"text": QUERY}, "resultType": {"facets": [{"field": "type"}]}},
    ).json()
    assert FLOW_TYPE in {b["value"] for b in searched["facets"]["type"]["buckets"]}


def readme_explore_example() -> dict[str, Any]:
    """The `POST /ard/explore` body the README shows, read from README.md as it is."""
    text = (Path(__file__).parents[2] / "README.md").read_text()
    section = text[text.index("## ARD registry") :]
    after = section[section.index("`POST /ard/explore` counts facets") :]
    block = after.split("```json\n", 1)[1].split("```", 1)[0]
    return json.loads(block)  # type: ignore[no-any-return]


def test_the_readme_s_explore_example_is_answered(client: TestClient) -> None:
    """Issue 21: the README's Explore was refused (`resultType` required, `otherCount` an
    extra input); the README and the API now say the same."""
    response = client.post("/ard/explore", json=readme_explore_example())
    assert response.status_code == 200, response.text
    body = response.json()
    spec_validator("ExploreResponse").validate(body)
    assert FLOW_TYPE in {b["value"] for b in body["facets"]["type"]["buckets"]}
    assert "office.demo.test" in {b["value"] for b in body["facets"]["publisher"]["buckets"]}
