"""GET /runs and GET /runs/{id} over a committed store on SQLite and PostgreSQL: the shape,
newest first, paging, the status filter, ETag/304, HEAD, 404 and 422 in the error shape."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from harness.db import BACKENDS, engine_for, fresh_pg_database
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.db.tables import CrawlRun
from registry.index import ActionIndex
from registry.store.crawl_state import finish_run, start_run, sweep_abandoned_runs
from registry.store.rows import utcnow
from tests.helpers.api import error

FIGURES = {
    "sites": 2,
    "documents": 3,
    "actions": 7,
    "flows": 1,
    "errors": 1,
    "requests": 12,
    "refused": 0,
    "seconds": 1.5,
    "changed_sites": ["a.example"],
    "replayed": [],
    "site_errors": {"b.example": ["timeout"]},
}


def _runs(url: str, data: Path) -> Iterator[tuple[TestClient, list[int]]]:
    engine = engine_for(url, data)
    migrate(engine)
    with transaction(engine) as session:
        ids = [start_run(session, "crawl", ["a.example", "b.example"]) for _ in range(4)]
        finish_run(session, ids[0], FIGURES)
        finish_run(session, ids[1], {**FIGURES, "changed_sites": []}, status="failed")
        silent = session.get_one(CrawlRun, ids[2])  # another machine's, silent for an hour
        silent.owner, silent.heartbeat_at = "elsewhere.example:1", utcnow() - timedelta(hours=1)
    with transaction(engine) as session:
        assert sweep_abandoned_runs(session, utcnow(), 60) == [ids[2]]
    app = create_app(
        Settings(data_dir=data, rate_limit=0), index=ActionIndex.open(data / "index"), engine=engine
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, ids
    engine.dispose()


@pytest.fixture(scope="module", params=BACKENDS)
def api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, list[int]]]:
    data = tmp_path_factory.mktemp("runs")
    if request.param == "sqlite":
        yield from _runs(f"sqlite:///{data / 'runs.db'}", data)
    else:
        with fresh_pg_database(f"actiondex_runs{os.getpid()}") as url:
            yield from _runs(url, data)


def body(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_runs_newest_first_with_their_figures(api: tuple[TestClient, list[int]]) -> None:
    client, ids = api
    page = body(client, "/runs")
    assert [run["id"] for run in page["items"]] == ids[::-1] and page["next_cursor"] is None
    by_id = {run["id"]: run for run in page["items"]}
    done = by_id[ids[0]]
    assert done["status"] == "finished" and done["kind"] == "crawl" and done["targets"] == 2
    assert {
        k: done[k] for k in ("sites", "documents", "actions", "errors", "requests", "seconds")
    } == {"sites": 2, "documents": 3, "actions": 7, "errors": 1, "requests": 12, "seconds": 1.5}
    assert done["changed_sites"] == ["a.example"]
    assert datetime.fromisoformat(done["finished_at"]).utcoffset() == timedelta(0)
    assert done["owner"].endswith(f":{os.getpid()}") and done["aborted"] is None
    assert by_id[ids[1]]["status"] == "failed"
    swept = by_id[ids[2]]
    assert swept["status"] == "aborted" and swept["aborted"].startswith("no heartbeat")
    assert swept["sites"] is None  # it never recorded figures
    running = by_id[ids[3]]
    assert running["status"] == "running" and running["finished_at"] is None
    assert running["heartbeat_at"] is not None


def test_runs_page_by_cursor_and_filter_by_status(api: tuple[TestClient, list[int]]) -> None:
    client, ids = api
    first = body(client, "/runs", limit=3)
    assert [r["id"] for r in first["items"]] == ids[:0:-1]
    second = body(client, "/runs", limit=3, cursor=first["next_cursor"])
    assert [r["id"] for r in second["items"]] == [ids[0]] and second["next_cursor"] is None
    for status, expected in (("aborted", [ids[2]]), ("running", [ids[3]]), ("finished", [ids[0]])):
        assert [r["id"] for r in body(client, "/runs", status=status)["items"]] == expected


def test_one_run_and_its_404(api: tuple[TestClient, list[int]]) -> None:
    client, ids = api
    assert body(client, f"/runs/{ids[0]}") == body(client, "/runs", limit=4)["items"][-1]
    missing = client.get("/runs/999999")
    assert missing.status_code == 404
    assert error(missing) == {
        "code": "not-found",
        "message": "no crawl run 999999",
        "field": "run_id",
    }


@pytest.mark.parametrize(
    "path",
    [
        "/runs?status=lost",
        "/runs?cursor=abc",
        "/runs?cursor=0",
        f"/runs?cursor={'9' * 11}",
        "/runs?limit=0",
        "/runs/abc",
        "/runs/0",
        f"/runs/{2**31}",
    ],
)
def test_bad_parameters_are_422_in_the_error_shape(
    api: tuple[TestClient, list[int]], path: str
) -> None:
    response = api[0].get(path)
    assert response.status_code == 422
    assert error(response)["code"]


def test_etag_304_and_head(api: tuple[TestClient, list[int]]) -> None:
    client, ids = api
    for path in ("/runs", f"/runs/{ids[0]}"):
        first = client.get(path)
        tag = first.headers["etag"]
        again = client.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b""
        head = client.head(path)
        assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == tag
