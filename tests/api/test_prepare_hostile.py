"""Prepare against a hostile site, through every door (issue 25): REST
``POST /actions/{id}/prepare``, the web preview and MCP ``prepare_call`` (the SDK's own
client). No ``$ref`` form makes a connection or reads a file, a cost that is no finite number
and a pointer onto a string are clear refusals instead of 500s, and no request holds a
database connection while an input is checked."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from sqlalchemy import Engine, create_engine

from api.app import create_app
from api.mcp.server import build_server
from harness.db import BACKENDS, engine_for, fresh_pg_database
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.index import ActionIndex
from registry.model.schemas import stable_id
from tests.helpers.hostile_refs import (
    FILE_SECRET,
    SECRET,
    Listener,
    canary_file,
    ref_forms,
    watching,
)
from tests.helpers.stores import add_site

HOST = "hostile.example"
PRICED = {"type": "object", "properties": {"amount": {"type": "string"}}}
# About a second of checking (160,000 keyword evaluations), within the budget.
WIDE = {
    "type": "object",
    "properties": {
        "t": {"type": "array", "items": {"anyOf": [{"const": f"v{i}"} for i in range(40)]}}
    },
}


def ident(name: str) -> str:
    return stable_id(HOST, "agent-actions", name)


@dataclass
class Hostile:
    client: TestClient
    engine: Engine
    index: ActionIndex
    listener: Listener
    canary: Path
    forms: list[str]


@pytest.fixture(scope="module", params=BACKENDS)
def hostile(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Hostile]:
    data = tmp_path_factory.mktemp("hostile")
    if request.param == "sqlite":
        yield from _hostile(f"sqlite:///{data / 'store.db'}", data)
    else:
        with fresh_pg_database(f"actiondex_hostile{os.getpid()}") as url:
            yield from _hostile(url, data)


def _hostile(url: str, data: Path) -> Iterator[Hostile]:
    listener, canary = Listener(), canary_file(data)
    forms = ref_forms(listener.port, canary)
    store = engine_for(url, data)
    migrate(store)
    with transaction(store) as session:
        add_site(
            session,
            HOST,
            [
                *(
                    {
                        "name": f"ref{i}",
                        "title": f"Ref {form}",
                        "method": "POST",
                        "effect": "write",
                        "input_schema": schema,
                    }
                    for i, (form, schema) in enumerate(forms.items())
                ),
                {
                    "name": "pointer",
                    "title": "Pointer",
                    "method": "POST",
                    "effect": "write",
                    "input_schema": {
                        "type": "object",
                        "x-values": {"s": "a string"},
                        "properties": {"t": {"$ref": "#/x-values/s"}},
                    },
                },
                {
                    "name": "priced",
                    "title": "Priced",
                    "method": "POST",
                    "effect": "spend",
                    "input_schema": PRICED,
                    "cost": {"field": "amount", "currency": "EUR"},
                },
                {
                    "name": "wide",
                    "title": "Wide",
                    "method": "POST",
                    "effect": "write",
                    "input_schema": WIDE,
                },
            ],
        )
    store.dispose()
    # One connection in the pool, and a second waits 1 s for it: a request that held it while
    # checking an input would make every other database route fail.
    extra: dict[str, Any] = {"connect_args": {"timeout": 30}} if url.startswith("sqlite") else {}
    engine = create_engine(url, pool_size=1, max_overflow=0, pool_timeout=1, **extra)
    index = ActionIndex.open(data / "index")
    with transaction(engine) as session:
        index.sync(session)
    app = create_app(Settings(data_dir=data, rate_limit=0), index=index, engine=engine)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Hostile(client, engine, index, listener, canary, list(forms))
    engine.dispose()
    listener.close()


def _ref_ids(hostile: Hostile) -> list[tuple[str, str]]:
    return [(form, ident(f"ref{i}")) for i, form in enumerate(hostile.forms)]


def _no_secret(text: str) -> None:
    assert SECRET not in text and FILE_SECRET not in text


def test_rest_prepare_fetches_no_ref(hostile: Hostile) -> None:
    for form, action_id in _ref_ids(hostile):
        with watching(hostile.canary) as watch:
            response = hostile.client.post(
                f"/actions/{action_id}/prepare", json={"input": {"t": "x"}}
            )
        assert (watch.events, hostile.listener.connections) == ([], 0), form
        assert response.status_code == 409, (form, response.text)
        error = response.json()["error"]
        assert error["code"] == "not-callable" and "never fetched" in error["message"], form
        _no_secret(response.text)


def test_the_web_preview_fetches_no_ref(hostile: Hostile) -> None:
    for form, action_id in _ref_ids(hostile):
        with watching(hostile.canary) as watch:
            response = hostile.client.post(f"/view/actions/{action_id}/prepare", data={"t": "x"})
        assert (watch.events, hostile.listener.connections) == ([], 0), form
        assert response.status_code == 422, form
        assert "never fetched" in response.text, form
        _no_secret(response.text)


def _mcp(hostile: Hostile, calls: list[dict[str, Any]]) -> list[Any]:
    """prepare_call with each of ``calls`` through the SDK's client, in-process."""

    @dataclass
    class Backing:
        index: ActionIndex
        engine: Engine
        search_threads: anyio.CapacityLimiter

    backing = Backing(hostile.index, hostile.engine, anyio.CapacityLimiter(2))
    results = []

    async def body() -> None:
        async with Client(build_server(lambda: backing)) as client:
            for arguments in calls:
                results.append(await client.call_tool("prepare_call", arguments))

    anyio.run(body)
    return results


def test_mcp_prepare_call_fetches_no_ref(hostile: Hostile) -> None:
    ids = _ref_ids(hostile)
    with watching(hostile.canary) as watch:
        results = _mcp(
            hostile, [{"action_id": action_id, "input": {"t": "x"}} for _, action_id in ids]
        )
    assert (watch.events, hostile.listener.connections) == ([], 0)
    for (form, _), result in zip(ids, results, strict=True):
        text = result.content[0].text
        assert result.is_error and "prepare_call: not-callable: " in text, (form, text)
        assert "never fetched" in text, form
        _no_secret(text)


@pytest.mark.parametrize("amount", ["1e309", "nan", "inf"])
def test_a_cost_that_is_no_finite_number_is_refused(hostile: Hostile, amount: str) -> None:
    """A 500 over REST (and the connection reset after it), success with ``amount: null``
    over MCP."""
    response = hostile.client.post(
        f"/actions/{ident('priced')}/prepare", json={"input": {"amount": amount}}
    )
    assert response.status_code == 409, response.text
    assert response.json()["error"]["code"] == "invalid-input"
    assert response.json()["error"]["field"] == "$.amount"
    [result] = _mcp(hostile, [{"action_id": ident("priced"), "input": {"amount": amount}}])
    assert result.is_error, result.structured_content
    assert "prepare_call: invalid-input: $.amount: " in result.content[0].text
    fine = hostile.client.post(
        f"/actions/{ident('priced')}/prepare", json={"input": {"amount": "3.5"}}
    )
    assert fine.status_code == 200 and fine.json()["cost"]["amount"] == 3.5


def test_a_pointer_onto_a_string_is_refused(hostile: Hostile) -> None:
    """It was a 500 (referencing read the string as a schema)."""
    response = hostile.client.post(
        f"/actions/{ident('pointer')}/prepare", json={"input": {"t": "x"}}
    )
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert error["code"] == "not-callable" and "not a schema" in error["message"]
    [result] = _mcp(hostile, [{"action_id": ident("pointer"), "input": {"t": "x"}}])
    assert result.is_error and "not a schema" in result.content[0].text


def test_no_connection_is_held_while_an_input_is_checked(hostile: Hostile) -> None:
    """With one connection in the pool: while a long check runs, the pool lends nothing out,
    and another database route answers before the check ends. When prepare held its session
    through the check, the pool had lent its one connection, and the other route waited for
    the check to end (or failed after the pool's 1 s timeout)."""
    done: dict[str, Any] = {}

    def slow_prepare() -> None:
        done["prepare"] = hostile.client.post(
            f"/actions/{ident('wide')}/prepare", json={"input": {"t": ["v39"] * 4000}}
        )
        done["prepared_at"] = time.perf_counter()

    worker = threading.Thread(target=slow_prepare)
    worker.start()
    time.sleep(0.3)
    checked_out = hostile.engine.pool.checkedout()  # type: ignore[attr-defined]
    other = hostile.client.get(f"/actions/{ident('priced')}")
    answered_at = time.perf_counter()
    worker.join(timeout=30)
    assert other.status_code == 200, other.text
    assert checked_out == 0
    assert answered_at < done["prepared_at"], "the check ended before the other route ran"
    assert done["prepare"].status_code in (200, 409), done["prepare"].text
