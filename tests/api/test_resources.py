"""GET /actions/{id}, /flows/{id}, /sites, /sites/{host}, /sites/{host}/manifest, /stats and
POST /actions/{id}/prepare over a committed store (tests/api/conftest.py), on SQLite and
PostgreSQL: bodies, ETag and 304, 404s and 422s in the error shape, 503 with the store away."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from registry.config import Settings
from registry.db.engine import transaction
from tests.api.conftest import Live
from tests.helpers.api import error
from tests.helpers.stores import promote_manifest


def find(live: Live, q: str, **params: Any) -> dict[str, Any]:
    response = live.client.get("/find", params={"q": q, **params})
    assert response.status_code == 200
    return response.json()["results"][0]  # type: ignore[no-any-return]


def test_an_action_by_the_id_find_gave(live_store: Live) -> None:
    hit = find(live_store, "pay for the cart", site="full-shop.example")
    response = live_store.client.get(f"/actions/{hit['id']}")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in hit if k not in ("score", "explain")} == {
        k: v for k, v in hit.items() if k not in ("score", "explain")
    }
    assert body["needs_approval"] is True and body["document"]["format"] == "agent-actions"
    assert response.headers["etag"].startswith('"')


def test_etag_and_304(live_store: Live) -> None:
    hit = find(live_store, "search products", site="full-shop.example")
    for path in (
        f"/actions/{hit['id']}",
        "/sites",
        "/sites/full-shop.example",
        "/sites/full-shop.example/manifest",
        "/stats",
    ):
        first = live_store.client.get(path)
        tag = first.headers["etag"]
        for header in (tag, f"W/{tag}", f'"other", {tag}', "*"):
            again = live_store.client.get(path, headers={"If-None-Match": header})
            assert again.status_code == 304 and again.content == b"", (path, header)
            assert again.headers["etag"] == tag
        assert live_store.client.get(path, headers={"If-None-Match": '"x"'}).status_code == 200


def test_a_flow_with_its_steps_resolved(live_store: Live) -> None:
    hit = find(live_store, "buy a product", site="full-shop.example")
    assert hit["kind"] == "flow"
    body = live_store.client.get(f"/flows/{hit['id']}").json()
    assert body["name"] == "buy_product"
    assert [s["resolved"]["name"] for s in body["steps"]] == [s["action"] for s in body["steps"]]
    assert body["steps"][0]["resolved"]["method"] == "GET"


def test_unknown_ids_and_hosts_are_404_in_the_error_shape(live_store: Live) -> None:
    unknown = "0123456789abcdef01234567"
    for path in (
        f"/actions/{unknown}",
        f"/flows/{unknown}",
        "/sites/nowhere.example",
        "/sites/nowhere.example/manifest",
        f"/actions/{unknown}/prepare",
    ):
        response = (
            live_store.client.post(path, json={"input": {}})
            if path.endswith("prepare")
            else live_store.client.get(path)
        )
        assert response.status_code == 404, path
        assert error(response)["code"] == "not-found"
    for no_id in ("a" * 25, "nope", unknown.upper()):  # an id is 24 hex digits
        refused = live_store.client.get(f"/actions/{no_id}")
        assert refused.status_code == 422 and error(refused)["field"] == "id", no_id


def test_a_site_as_users_type_it(live_store: Live) -> None:
    for typed in ("full-shop.example", "FULL-SHOP.example", "full-shop.example."):
        body = live_store.client.get(f"/sites/{typed}").json()
        assert body["host"] == "full-shop.example" and body["name"] == "Kettle & Crumb"
    assert {d["format"] for d in body["documents"]} == {"agent-actions"}
    assert [f["name"] for f in body["flows"]] == ["buy_product"]


def test_a_site_by_its_url_as_the_readme_says(live_store: Live) -> None:
    """Issue 21: `/sites/http://office.demo.test/` (or %2F-encoded) was a generic 404."""
    client = live_store.client
    for typed in (
        "https://full-shop.example/",
        "http://full-shop.example",
        "https%3A%2F%2Ffull-shop.example%2F",
        "https:%2F%2FFULL-SHOP.example",
    ):
        response = client.get(f"/sites/{typed}")
        assert response.status_code == 200, (typed, response.text)
        assert response.json()["host"] == "full-shop.example", typed
        manifest = client.get(f"/sites/{typed.rstrip('/').removesuffix('%2F')}/manifest")
        assert manifest.status_code == 200 and manifest.json()["actions"], typed
        history = client.get(f"/sites/{typed.rstrip('/').removesuffix('%2F')}/history")
        assert history.status_code == 200 and history.json()["items"], typed
    missing = client.get("/sites/https://nowhere.example/")
    assert missing.status_code == 404 and error(missing)["field"] == "host"
    assert "nowhere.example" in error(missing)["message"]


def test_the_manifest_export_passes_our_validator(live_store: Live) -> None:
    for host in (
        "full-shop.example",
        "webmcp-forms.example",
        "harbour-flows.example",
        "shop.example",
    ):
        export = live_store.client.get(f"/sites/{host}/manifest")
        assert export.status_code == 200, host
        report = live_store.client.post(
            "/validate", content=export.content, params={"origin": export.json()["site"]["url"]}
        ).json()
        assert report["format"] == "agent-actions"
        assert [d for d in report["diagnostics"] if d["severity"] == "error"] == [], host
        assert len(report["actions"]) == len(export.json()["actions"])


def test_sites_pages_and_filters(live_store: Live) -> None:
    seen, cursor = [], None
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = live_store.client.get("/sites", params=params).json()
        seen += [item["host"] for item in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 6
    openapi = live_store.client.get("/sites", params={"format": "openapi"}).json()["items"]
    # harbour-flows' Wildcard agents.json reads an OpenAPI document, stored beside it.
    assert {i["host"] for i in openapi} == {"petstore-31.example", "harbour-flows.example"}
    assert live_store.client.get("/sites", params={"has_actions": "false"}).json()["items"] == []
    future = live_store.client.get("/sites", params={"updated_since": "2999-01-01T00:00:00Z"})
    assert future.json() == {"items": [], "next_cursor": None, "resume_cursor": None}
    for params in (
        {"limit": 0},
        {"limit": 501},
        {"cursor": "bm9wZQ"},
        {"format": "A B"},
        {"updated_since": "yesterday"},
    ):
        response = live_store.client.get("/sites", params=params)
        assert response.status_code == 422, params
        assert error(response)["field"] == next(iter(params))
    # A token of the cursor's published shape is a place in the list (issue 21: schemathesis)
    assert live_store.client.get("/sites", params={"cursor": "0~a"}).json()["items"]
    refused = error(live_store.client.get("/sites", params={"cursor": "bm9wZQ"}))["message"]
    assert "~shop.example" in refused, refused  # an example of the shape, not a regex


def test_stats(live_store: Live) -> None:
    body = live_store.client.get("/stats").json()
    assert body["sites"] == 6 and body["flows"] >= 2
    assert sum(body["actions_by_effect"].values()) == body["actions"]
    assert body["documents_by_format"]["agent-actions"] == 3


def test_prepare_a_call(live_store: Live) -> None:
    hit = find(live_store, "search products", site="full-shop.example")
    response = live_store.client.post(f"/actions/{hit['id']}/prepare", json={"input": {"q": "tin"}})
    assert response.status_code == 200
    assert response.json()["url"] == "https://full-shop.example/api/products?q=tin"
    bad = live_store.client.post(f"/actions/{hit['id']}/prepare", json={"input": {"page": 0}})
    # 409, not 422 (issue 21, schemathesis): the body fits the API's schema; the action's own
    # input schema, which is data, refuses it.
    assert bad.status_code == 409
    body = bad.json()["error"]
    assert body["code"] == "invalid-input" and body["field"] == "$.page"
    assert body["problems"] == [
        {"path": "$.page", "message": "0 is less than the minimum of 1"},
        {"path": "$.q", "message": "'q' is required"},
    ]
    assert "$.q: 'q' is required" in body["message"]


def test_prepare_refuses_what_it_cannot_read(live_store: Live) -> None:
    hit = find(live_store, "search products", site="full-shop.example")
    path = f"/actions/{hit['id']}/prepare"
    for content in (
        b"nope",
        b"[]",
        b'{"input": 3}',
        b'{"input": {}, "more": 1}',
        b'{"input": {"q": NaN}}',
        b"[" * 50_000,
    ):
        response = live_store.client.post(path, content=content)
        assert response.status_code == 422, content[:20]
        assert error(response)["code"] == "invalid-parameter"
    huge = live_store.client.post(path, content=b'{"input": {"q": "' + b"x" * 70_000 + b'"}}')
    assert huge.status_code == 413 and error(huge)["code"] == "too-large"


def test_reads_do_not_wait_for_a_writer(live_store: Live) -> None:
    """A crawl promoting a site holds SQLite's write lock; the API's reads begin deferred
    (registry.db.engine.reading), so they answer from the last committed state meanwhile."""
    before = live_store.client.get("/stats").json()
    with transaction(live_store.engine) as session:
        promote_manifest(session, "writer.example", [{"name": "x", "method": "GET", "path": "/x"}])
        started = time.monotonic()
        during = live_store.client.get("/stats")
        assert time.monotonic() - started < 5 and during.status_code == 200
        assert during.json()["sites"] == before["sites"]  # not committed yet
        session.rollback()


def test_the_store_away_is_503(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, rate_limit=0, database_url="postgresql://nobody@127.0.0.1:9/nothing"
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        for path in ("/sites", "/stats", f"/actions/{'ab' * 12}", "/sites/x.example"):
            response = client.get(path)
            assert response.status_code == 503, path
            assert error(response)["code"] == "store-unavailable"
            assert response.headers["retry-after"] == "5"
        assert client.post(f"/actions/{'ab' * 12}/prepare", json={"input": {}}).status_code == 503


def test_a_change_between_pages_reaches_a_mirror_once(live_store: Live) -> None:
    """Last in this module: it changes the store. A mirror pages through /sites; meanwhile a
    site it has not reached yet changes, and one it has seen changes too."""
    client = live_store.client
    first = client.get("/sites", params={"limit": 3}).json()
    seen = [(i["host"], i["version"]) for i in first["items"]]
    unseen = client.get("/sites", params={"cursor": first["next_cursor"], "limit": 1}).json()
    with transaction(live_store.engine) as session:
        for host in (seen[0][0], unseen["items"][0]["host"]):
            promote_manifest(
                session, host, [{"name": "changed", "method": "GET", "path": "/changed"}]
            )
    cursor = first["next_cursor"]
    while cursor is not None:
        page = client.get("/sites", params={"cursor": cursor, "limit": 3}).json()
        seen += [(i["host"], i["version"]) for i in page["items"]]
        cursor, resume = page["next_cursor"], page["resume_cursor"]
    # Six sites, and the one seen before it changed once more with its new version; the one
    # not reached yet is listed once, changed.
    assert len(seen) == len(set(seen)) == 7
    assert {host for host, _ in seen} == {i["host"] for i in client.get("/sites").json()["items"]}
    assert [host for host, _ in seen].count(unseen["items"][0]["host"]) == 1
    assert client.get("/sites", params={"cursor": resume}).json()["items"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/ard/agents?orderBy=bogus",
        "/ard/agents?filter=nope",
        "/sites?updated_since=yesterday",
        "/sites/full-shop.example/history?cursor=x",
        "/runs?cursor=x",
    ],
)
def test_a_bad_parameter_says_what_is_accepted_not_a_regex(live_store: Live, path: str) -> None:
    """Issue 21: these printed a pattern of up to 300 characters."""
    response = live_store.client.get(path)
    assert response.status_code in (400, 422), response.text
    body = response.json()
    message = body["message"] if path.startswith("/ard") else error(response)["message"]
    assert "e.g." in message or "such as" in message, message
    assert len(message) < 160 and "^" not in message and "\\\\" not in message, message


@pytest.mark.parametrize(
    ("param", "value", "known"),
    [
        ("format", "nope", "agent-actions"),
        ("method", "FETCH", "POST"),
        ("type", "NotAType", "SearchAction"),
    ],
)
def test_an_unknown_filter_value_is_422_listing_the_known_ones(
    live_store: Live, param: str, value: str, known: str
) -> None:
    """Issue 21: `/find?format=nope` was 200 with 0 results."""
    response = live_store.client.get("/find", params={"q": "buy", param: value})
    assert response.status_code == 422, response.text
    assert error(response)["field"] == param
    assert value in error(response)["message"] and known in error(response)["message"]
    spelled = {"format": "openapi", "method": "post", "type": "https://schema.org/BuyAction"}
    assert live_store.client.get("/find", params={"q": "buy", param: spelled[param]}).is_success
