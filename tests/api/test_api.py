"""GET /find and /healthz through the ASGI app, against an index built from the store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from registry.config import Settings
from registry.index import ActionIndex
from tests.helpers.api import error, find_client

RESULT_KEYS = {
    "id",
    "kind",
    "site",
    "name",
    "title",
    "description",
    "effect",
    "needs_approval",
    "type",
    "method",
    "endpoint",
    "origin",
    "verified",
    "auth",
    "scope",
    "cost",
    "input_schema",
    "output_schema",
    "score",
    "source",
}


@pytest.fixture
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    with find_client(session, tmp_path) as test_client:
        yield test_client


def test_find_shape(client: TestClient) -> None:
    response = client.get("/find", params={"q": "  add to cart  "})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"query", "results", "took_ms"}
    assert body["query"] == "add to cart" and isinstance(body["took_ms"], float)
    first = body["results"][0]
    assert set(first) == RESULT_KEYS
    assert first["name"] == "add_to_cart" and first["kind"] == "action"
    assert first["site"] == "shop.example" and first["effect"] == "write"
    assert first["needs_approval"] is False  # write: within what the person asked for
    assert first["method"] == "POST"
    assert first["endpoint"] == "https://shop.example/api/add_to_cart"
    assert first["source"] == {
        "url": "https://shop.example/.well-known/agent-actions.json",
        "format": "agent-actions",
    }
    assert isinstance(first["score"], float) and first["score"] > 0
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)


def test_flows_come_with_their_steps(client: TestClient) -> None:
    results = client.get("/find", params={"q": "buy a product"}).json()["results"]
    flow = next(r for r in results if r["kind"] == "flow")
    assert set(flow) == RESULT_KEYS | {"steps"}
    assert [s["action"] for s in flow["steps"]] == ["searchProducts", "add_to_cart", "checkout"]
    assert flow["steps"][1]["bindings"] == {"sku": "$steps.0.sku"}
    assert all("steps" not in r for r in results if r["kind"] == "action")


def test_filters(client: TestClient) -> None:
    q = "search subscribe delete account"
    only_read = client.get("/find", params={"q": q, "effect": "read"}).json()["results"]
    assert only_read and {r["effect"] for r in only_read} == {"read"}
    two = client.get("/find", params={"q": q, "effect": ["send", "delete"]}).json()["results"]
    assert {r["effect"] for r in two} == {"send", "delete"}
    news = client.get("/find", params={"q": "search", "site": "NEWS.example"}).json()["results"]
    assert news and {r["site"] for r in news} == {"news.example"}


def test_limit_bounds(client: TestClient) -> None:
    assert len(client.get("/find", params={"q": "search", "limit": 1}).json()["results"]) == 1
    assert client.get("/find", params={"q": "search", "limit": 50}).status_code == 200
    for bad in (0, 51, -1, "ten"):
        response = client.get("/find", params={"q": "search", "limit": bad})
        assert response.status_code == 422
        assert error(response)["field"] == "limit"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "q"),
        ({"q": "   "}, "q"),
        ({"q": "x" * 1025}, "q"),
        ({"q": "cart", "effect": "explode"}, "effect"),
        ({"q": "cart", "effect": ["read", "READ"]}, "effect"),
        ({"q": "cart", "site": "shop.example/evil"}, "site"),
        ({"q": "cart", "site": "-bad"}, "site"),
    ],
)
def test_invalid_parameters_are_structured_422(
    client: TestClient, params: dict[str, object], field: str
) -> None:
    response = client.get("/find", params=params)
    assert response.status_code == 422
    assert error(response)["code"] == "invalid-parameter"
    assert error(response)["field"] == field


def test_edge_queries_are_fine(client: TestClient) -> None:
    for q in [
        '"unbalanced',
        "site:shop.example (",
        "x" * 1024,
        " ".join(["cart"] * 200),
        "\x00",
        "*",
        "!!!",
    ]:
        response = client.get("/find", params={"q": q})
        assert response.status_code == 200, q
    assert client.get("/find", params={"q": "!!!"}).json()["results"] == []


def test_unknown_route_and_wrong_method(client: TestClient) -> None:
    response = client.get("/nope")
    assert response.status_code == 404 and error(response)["code"] == "not-found"
    response = client.post("/find", params={"q": "cart"})
    assert response.status_code == 405 and error(response)["code"] == "method-not-allowed"
    assert response.headers["allow"] == "GET"


class BrokenIndex(ActionIndex):
    """An index whose disk went away: every search fails."""

    def __init__(self) -> None:  # no folder at all
        pass

    def searcher(self) -> object:  # type: ignore[override]
        raise OSError("/secret/path/index: input/output error")


def test_unexpected_errors_are_structured_500(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path), index=BrokenIndex())
    with TestClient(app, raise_server_exceptions=False) as broken:
        response = broken.get("/find", params={"q": "cart"})
    assert response.status_code == 500
    assert error(response) == {
        "code": "internal-error",
        "message": "internal server error",
        "field": None,
    }
    assert "secret" not in response.text and "Traceback" not in response.text


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "actions": 7, "index_generation": 1}


def test_lifespan_opens_the_index_from_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with TestClient(create_app(settings)) as fresh:
        assert fresh.get("/healthz").json()["actions"] == 0
    assert (settings.index_path / "current").is_symlink()


def test_find_searches_in_threads_one_per_core_and_one_more(client: TestClient) -> None:
    # actiondex serve is one process: /find searches in threads (tantivy releases the GIL),
    # one more at once than there are cores (one hands its page back to the event loop while
    # the others search), apart from the pool /validate's fetches use.
    from api.app import SEARCH_THREADS

    limiter = client.app.state.search_threads  # type: ignore[attr-defined]
    assert limiter.total_tokens == SEARCH_THREADS == len(os.sched_getaffinity(0)) + 1
    bodies = [client.get("/find", params={"q": "add to cart"}).json() for _ in range(3)]
    assert limiter.borrowed_tokens == 0 and bodies[0]["results"]
