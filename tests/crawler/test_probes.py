"""Liveness probes end to end (issue 22, done-when): a loopback web of MCP servers (the SDK's
own, one that knows only ``initialize``, one behind auth, an HTML page, a slow one, a dead
port) and A2A agents is crawled by `actiondex crawl` on each database; every endpoint is probed
with its read-only handshake only, the verdicts are stored, shown and filtered on, and the live
servers' tools are found by /find with their effects."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.app import create_app
from harness.db import engine_for
from harness.mcp_web import ProbeWeb
from harness.procs import AX, env_for
from registry.config import Settings
from registry.db.tables import EndpointLiveness, Site
from registry.model.urls import key_host

pytestmark = pytest.mark.timeout(400)
EXPECTED = {
    "live.mcp.test": "live",
    "old.mcp.test": "live",
    "auth.mcp.test": "auth-required",
    "web.mcp.test": "not-protocol",
    "slow.mcp.test": "unreachable",
    "dead.mcp.test": "unreachable",
    "agent.a2a.test": "live",
    "gone.a2a.test": "not-protocol",
}


@pytest.fixture
def web() -> Iterator[ProbeWeb]:
    served = ProbeWeb().start()
    yield served
    served.stop()


def _run(data: Path, db_url: str, web: ProbeWeb, *args: str) -> dict[str, Any]:
    flags = [a for entry in web.resolve_args() for a in ("--resolve", entry)]
    env = env_for(data, db_url, ACTIONDEX_PROBE_TIMEOUT="1.5")
    subprocess.run([*AX, "migrate"], env=env, capture_output=True, timeout=120, check=True)
    proc = subprocess.run(
        [*AX, "crawl", "--json", "--delay", "0", *flags, *args],
        env=env,
        text=True,
        capture_output=True,
        timeout=300,
    )
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_a_web_of_mcp_servers_and_a2a_agents_is_probed_and_found(
    web: ProbeWeb, empty_db_url: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db_url = "" if empty_db_url.startswith("sqlite") else empty_db_url
    summary = _run(data, db_url, web, *[web.url(h) for h in web.hosts()])
    probes = summary["probes"]
    assert probes["statuses"] == {
        "live": 3,
        "auth-required": 1,
        "not-protocol": 2,
        "unreachable": 2,
    }
    assert probes["tools"] == 5  # 3 of the SDK's server, 2 of the older one
    # Read-only by construction: the handshakes and tools/list, never a tool call.
    asked = {path for (_, _, path) in web.requests}
    assert not any("tools/call" in p or "resources/read" in p for p in asked)
    assert not web.tool_calls
    assert ("old.mcp.test", "POST", "/mcp server/discover") in web.requests  # tried first
    assert ("live.mcp.test", "POST", "/mcp initialize") not in web.requests  # not needed

    engine = engine_for(empty_db_url if db_url else f"sqlite:///{data / 'actiondex.db'}", data)
    with Session(engine) as session:
        joined = session.execute(select(Site.host, EndpointLiveness).join(Site))
        rows = {key_host(h): r for h, r in joined}  # one loopback port: the host names the site
    assert {host: row.status for host, row in rows.items()} == EXPECTED
    assert rows["live.mcp.test"].detail["era"] == "2026-07-28"
    assert rows["old.mcp.test"].detail["era"] == "2025-03-26"
    assert rows["auth.mcp.test"].http_status == 401
    metadata = rows["auth.mcp.test"].detail["protected_resource"]
    assert metadata["authorization_servers"] == ["https://login.auth.test"]
    assert rows["slow.mcp.test"].detail["reason"] == "timeout"
    assert all(row.checked_at and row.latency_ms is not None for row in rows.values())

    settings = Settings(data_dir=data, database_url=db_url)
    with TestClient(create_app(settings, engine=engine)) as client:
        found = client.get("/find", params={"q": "weather forecast city", "origin": "any"}).json()
        forecast = next(r for r in found["results"] if r["name"] == "forecast")
        assert forecast["effect"] == "read" and forecast["liveness"]["status"] == "live"
        assert forecast["input_schema"]["properties"]["city"]["type"] == "string"
        assert forecast["output_schema"] is not None
        effects = {
            name: _one(client, q, name)["effect"]
            for q, name in (("delete saved city", "forget_city"), ("text message", "notify"))
        }
        assert effects == {"forget_city": "delete", "notify": "send"}
        assert _one(client, "list orders account", "list_orders")["effect"] == "read"
        # live=true keeps the agent that answers, drops the one whose card is gone
        trips = client.get("/find", params={"q": "plan trip", "live": "true"}).json()
        assert {key_host(r["site"]) for r in trips["results"]} == {"agent.a2a.test"}
        site = client.get("/sites/auth.mcp.test").json()
        assert site["endpoints"][0]["status"] == "auth-required"
        docs = client.get("/sites/live.mcp.test").json()["documents"]
        codes = {d["code"] for doc in docs for d in doc["diagnostics"]}
        assert "suspicious-instruction" in codes  # the tool whose description gives orders
        detail = client.get(f"/actions/{forecast['id']}").json()
        assert detail["liveness"]["status"] == "live"
        assert "Liveness" in client.get("/view/sites/live.mcp.test").text

    # Their own schedule: nothing is due yet; once due, `crawl --due` probes them again.
    with Session(engine) as session, session.begin():
        session.execute(update(EndpointLiveness).values(next_probe_at=EndpointLiveness.checked_at))
    engine.dispose()
    due = _run(data, db_url, web, "--due")
    assert due["probes_due"]["endpoints"] == len(EXPECTED)


def _one(client: TestClient, query: str, name: str) -> dict[str, Any]:
    found = client.get("/find", params={"q": query, "origin": "any", "limit": 20}).json()
    return next(r for r in found["results"] if r["name"] == name)
