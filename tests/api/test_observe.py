"""What an operator sees: /readyz, /metrics, the access log; and HEAD and CORS on the routes."""

from __future__ import annotations

import http.client
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.app import create_app
from harness.db import engine_for
from harness.procs import serving
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.index import ActionIndex
from registry.store.crawl_state import finish_run, start_run
from tests.helpers.stores import shop_and_news


@pytest.fixture
def store(empty_db_url: str, tmp_path: Path) -> Iterator[Engine]:
    """A migrated store of its own (a crawl run is committed), on each backend."""
    engine = engine_for(empty_db_url, tmp_path)
    migrate(engine)
    with transaction(engine) as session:
        shop_and_news(session)
    yield engine
    engine.dispose()


@pytest.fixture
def client(store: Engine, tmp_path: Path) -> Iterator[TestClient]:
    index = ActionIndex.open(tmp_path / "index")
    with transaction(store) as session:
        index.sync(session)
    app = create_app(Settings(data_dir=tmp_path, rate_limit=0), index=index, engine=store)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def _series(text: str, name: str) -> dict[str, float]:
    """``{labels: value}`` of one metric in Prometheus text."""
    found = {}
    for line in text.splitlines():
        match = re.fullmatch(rf"{name}(\{{[^}}]*\}})? (\S+)", line)
        if match:
            found[match.group(1) or ""] = float(match.group(2))
    return found


def test_ready_when_the_store_answers_and_the_index_is_loaded(client: TestClient) -> None:
    body = client.get("/readyz").json()
    assert body["status"] == "ready" and body["store"] == "ok"
    assert body["actions"] > 0 and body["index_generation"] >= 1
    assert 0 <= body["index_age_s"] < 60


def test_not_ready_when_the_store_is_unreachable(tmp_path: Path) -> None:
    # Port 1 on loopback: nothing listens, the connection is refused at once.
    settings = Settings(data_dir=tmp_path, database_url="postgresql://nobody@127.0.0.1:1/x")
    app = create_app(settings, index=ActionIndex.open(tmp_path / "index"))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        response = test_client.get("/readyz")
        assert test_client.get("/healthz").status_code == 200  # alive, just not ready
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "not-ready" and "unreachable" in error["message"]
    assert "\n" not in error["message"]


def test_metrics_count_requests_by_route_and_status(client: TestClient) -> None:
    for _ in range(3):
        assert client.get("/find", params={"q": "buy paper"}).status_code == 200
    assert client.get("/find", params={"q": ""}).status_code == 422
    assert client.get("/no/such/page").status_code == 404
    response = client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    requests = _series(response.text, "actiondex_http_requests_total")
    assert requests['{method="GET",route="/find",status="200"}'] == 3
    assert requests['{method="GET",route="/find",status="422"}'] == 1
    assert requests['{method="GET",route="(unmatched)",status="404"}'] == 1
    latency = _series(response.text, "actiondex_http_request_duration_seconds_count")
    assert latency['{method="GET",route="/find"}'] == 4
    assert "q=" not in response.text and "paper" not in response.text  # no query text


def test_metrics_tell_the_index_and_the_last_crawl(client: TestClient, store: Engine) -> None:
    text = client.get("/metrics").text
    docs = _series(text, "actiondex_index_documents")
    readyz = client.get("/readyz").json()
    assert docs['{kind="action"}'] == readyz["actions"] == 7
    assert docs['{kind="flow"}'] == readyz["flows"] == 1
    assert _series(text, "actiondex_index_age_seconds")[""] >= 0
    assert "actiondex_last_crawl" not in text  # no run yet: no figures made up
    with transaction(store) as session:
        run = start_run(session, "crawl", ["shop.test"])
        finish_run(
            session,
            run,
            {
                "sites": 2,
                "actions": 7,
                "requests": 31,
                "errors": 1,
                "seconds": 4.5,
                "changed_sites": ["shop.test"],
            },
        )
    text = client.get("/metrics").text
    figures = _series(text, "actiondex_last_crawl")
    assert figures['{figure="sites"}'] == 2 and figures['{figure="requests"}'] == 31
    assert figures['{figure="changed_sites"}'] == 1 and figures['{figure="seconds"}'] == 4.5
    assert _series(text, "actiondex_last_crawl_ok")[""] == 1
    assert _series(text, "actiondex_last_crawl_finished_timestamp_seconds")[""] > 1.7e9


def test_one_access_line_per_request(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="actiondex.access"):
        client.get("/find", params={"q": "secret medical words"})
        client.head("/healthz")
        client.get("/missing")
    lines = [r.getMessage() for r in caplog.records if r.name == "actiondex.access"]
    assert len(lines) == 3
    assert re.fullmatch(r"GET /find 200 \d+\.\d ms", lines[0])
    assert re.fullmatch(r"HEAD /healthz 200 \d+\.\d ms", lines[1])
    assert re.fullmatch(r"GET \(unmatched\) 404 \d+\.\d ms", lines[2])


def test_head_answers_every_get_route_as_get_does(client: TestClient) -> None:
    routes = [
        path
        for path, ops in client.app.openapi()["paths"].items()  # type: ignore[attr-defined]
        if "get" in ops and "{" not in path
    ]
    assert {"/find", "/healthz", "/readyz", "/metrics"} <= set(routes)
    for path in routes:
        params = {"q": "buy"} if path == "/find" else None
        got, head = client.get(path, params=params), client.head(path, params=params)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
        assert int(head.headers["content-length"]) > 0, path
    assert client.head("/validate").status_code == 405  # no GET there, no HEAD either


def test_cors_shares_the_read_routes_only(client: TestClient) -> None:
    origin = {"Origin": "https://agent.example"}
    found = client.get("/find", params={"q": "buy"}, headers=origin)
    assert found.headers["access-control-allow-origin"] == "*"
    exposed = found.headers["access-control-expose-headers"]
    assert "ETag" in exposed and "Mcp-Session-Id" in exposed
    preflight = client.options("/find", headers={**origin, "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200
    assert "GET" in preflight.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in preflight.headers
    posted = client.post("/validate", content=b"{}", headers=origin)
    assert "access-control-allow-origin" not in posted.headers


def test_cors_origins_come_from_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, cors_origins="https://a.example, https://b.example")
    app = create_app(settings, index=ActionIndex.open(tmp_path / "index"))
    with TestClient(app) as test_client:
        allowed = test_client.get("/healthz", headers={"Origin": "https://b.example"})
        other = test_client.get("/healthz", headers={"Origin": "https://evil.example"})
    assert allowed.headers["access-control-allow-origin"] == "https://b.example"
    assert "access-control-allow-origin" not in other.headers


def test_two_heads_on_one_kept_alive_connection_both_answer(tmp_path: Path) -> None:
    """A load balancer's probe: HEAD twice on one connection, on a real server. As GET inside,
    the server waited for the body's Content-Length bytes, logged a traceback and reset it."""
    with serving(tmp_path) as base:
        connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=10)
        for path in ("/healthz", "/healthz", "/find?q=buy", "/readyz"):
            connection.request("HEAD", path)
            answer = connection.getresponse()
            assert answer.status == 200, path
            assert answer.read() == b"" and int(answer.headers["content-length"]) > 0, path
        connection.close()
        log = next(tmp_path.glob("serve-*.log")).read_text()
    assert "Traceback" not in log and "shorter than Content-Length" not in log, log
