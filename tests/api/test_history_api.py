"""GET /sites/{host}/history over a committed store, on SQLite and PostgreSQL: the JSON
shape, newest first, paging by cursor, the host as users type it, ETag and 304, a removed
site's record, and 404/422 in the error shape."""

from __future__ import annotations

from typing import Any

from registry.db.engine import transaction
from registry.store.removal import remove_site
from tests.api.conftest import Live
from tests.helpers.api import error
from tests.helpers.stores import promote_manifest

HOST = "history.example"


def _action(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "title": name.replace("_", " "),
        "method": "GET",
        "path": f"/api/{name}",
        "effect": "read",
        **extra,
    }


def _store_versions(live: Live) -> None:
    """Version 1 with search; 2 adds order; 3 changes search's title; then a removal."""
    with transaction(live.engine) as session:
        promote_manifest(session, HOST, [_action("search")])
    with transaction(live.engine) as session:
        promote_manifest(session, HOST, [_action("search"), _action("order", effect="spend")])
    with transaction(live.engine) as session:
        promote_manifest(session, HOST, [_action("search", title="Find"), _action("order")])


def test_history_newest_first_with_paging(live_store: Live) -> None:
    _store_versions(live_store)
    first = live_store.client.get(f"/sites/{HOST.upper()}/history", params={"limit": 2})
    assert first.status_code == 200 and first.headers["etag"].startswith('"')
    body = first.json()
    assert set(body) == {"host", "removed_at", "version", "items", "next_cursor"}
    assert (body["host"], body["removed_at"], body["version"]) == (HOST, None, 3)
    newest, second = body["items"]
    assert set(newest) == {
        "id",
        "version",
        "at",
        "reason",
        "run_id",
        "added",
        "removed",
        "changed",
        "actions",
        "flows",
    }
    assert (newest["version"], newest["reason"], newest["changed"]) == (
        3,
        "crawl",
        {"order": ["effect"], "search": ["title"]},
    )
    assert (second["version"], second["added"], second["actions"]) == (2, ["order"], 2)
    rest = live_store.client.get(
        f"/sites/{HOST}/history", params={"limit": 2, "cursor": body["next_cursor"]}
    ).json()
    assert [e["version"] for e in rest["items"]] == [1] and rest["next_cursor"] is None
    assert rest["items"][0]["added"] == ["search"]
    again = live_store.client.get(
        f"/sites/{HOST.upper()}/history",
        params={"limit": 2},
        headers={"If-None-Match": first.headers["etag"]},
    )
    assert again.status_code == 304 and again.content == b""
    with transaction(live_store.engine) as session:
        remove_site(session, HOST)
    removed = live_store.client.get(f"/sites/{HOST}/history", params={"limit": 1}).json()
    assert removed["removed_at"] is not None and removed["version"] == 4
    site = live_store.client.get(f"/sites/{HOST}").json()
    assert site["removed_at"] == removed["removed_at"] and site["actions"] == []
    assert live_store.client.get("/sites/full-shop.example").json()["removed_at"] is None
    (entry,) = removed["items"]
    assert (entry["reason"], entry["removed"], entry["actions"]) == (
        "removed",
        ["order", "search"],
        0,
    )


def test_unknown_hosts_and_bad_parameters(live_store: Live) -> None:
    missing = live_store.client.get("/sites/nowhere.example/history")
    assert missing.status_code == 404 and error(missing)["code"] == "not-found"
    assert error(missing)["field"] == "host"
    for params, field in (
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"cursor": "abc"}, "cursor"),
        ({"cursor": "0"}, "cursor"),
        ({"cursor": "9" * 11}, "cursor"),
    ):
        response = live_store.client.get("/sites/full-shop.example/history", params=params)
        assert response.status_code == 422, params
        assert error(response)["field"] == field


def test_a_fixture_site_has_its_first_crawl(live_store: Live) -> None:
    body = live_store.client.get("/sites/full-shop.example/history").json()
    (first,) = body["items"]
    assert first["reason"] == "crawl" and first["version"] == 1
    assert "flow:buy_product" in first["added"] and first["actions"] == len(
        [name for name in first["added"] if not name.startswith("flow:")]
    )
    big = live_store.client.get(
        "/sites/full-shop.example/history", params={"cursor": "999999999"}
    ).json()
    assert big["items"] == [first] and big["next_cursor"] is None
