"""Two ports on one host are two sites (issue 20): two services on kites.test, each on its own
loopback port, crawled in one run, are kept apart by the site key (registry.model.urls.site_key,
``host:port`` off the default port) in the store, the site filter, ``/sites/{host:port}`` (with
its manifest and history) and ARD identifiers, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from harness.procs import AX, env_for
from harness.web import LoopbackWeb, Reply, json_reply
from harness.web import Site as WebSite
from registry.config import Settings
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(300)
HOST = "kites.test"


def service(action: str) -> LoopbackWeb:
    manifest = {
        "version": "0.1",
        "site": HOST,
        "actions": [
            {"name": action, "title": f"Fly a kite ({action})", "method": "GET"}
            | {"path": "/fly{?q}", "effect": "read"}
        ],
    }
    well_known = json_reply(json.dumps(manifest))
    return LoopbackWeb(
        {HOST: WebSite({"/robots.txt": Reply(404), "/.well-known/agent-actions.json": well_known})}
    )


def found(client: TestClient, site: str) -> set[str]:
    answer = client.get("/find", params={"q": "fly a kite", "site": site})
    assert answer.status_code == 200, answer.text
    return {r["name"] for r in answer.json()["results"]}


def test_two_ports_on_one_host_are_two_sites(empty_db_url: str, tmp_path: Path) -> None:
    env = env_for(tmp_path, empty_db_url)
    migrated = subprocess.run([*AX, "migrate"], env=env, capture_output=True, text=True)
    assert migrated.returncode == 0, migrated.stderr
    with service("fly_north") as north, service("fly_south") as south:
        summary = crawl(
            tmp_path,
            north,
            north.url(HOST),
            south.url(HOST),
            resolve=tuple(south.resolve_args()),
            env={"ACTIONDEX_DATABASE_URL": empty_db_url},
        )
    keys = {"fly_north": f"{HOST}:{north.port}", "fly_south": f"{HOST}:{south.port}"}
    assert set(summary["per_key"]) == set(keys.values()), summary["stderr"][-2000:]

    settings = Settings(data_dir=tmp_path, database_url=empty_db_url)
    with TestClient(create_app(settings)) as client:
        assert found(client, HOST) == set(keys)  # the bare host: every port of it
        for action, key in keys.items():
            assert found(client, key) == {action}
            site = client.get(f"/sites/{key}")
            assert site.status_code == 200, site.text
            body: dict[str, Any] = site.json()
            assert body["host"] == key and body["origin"] == f"http://{key}"
            manifest = client.get(f"/sites/{key}/manifest")
            assert [a["name"] for a in manifest.json()["actions"]] == [action]
            history = client.get(f"/sites/{key}/history")
            assert history.status_code == 200 and history.json()["items"], history.text
            urns = client.post("/ard/search", json={"query": {"text": action}}).json()
            assert f"urn:air:{key}:action:{action}" in json.dumps(urns)
        # Two sites on the host: a bare host names neither of them.
        assert client.get(f"/sites/{HOST}").status_code == 404
