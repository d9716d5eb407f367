"""A Wildcard agents.json whose OpenAPI source lives on another host: the crawl fetches it
(the format says its references cross hosts) and stores each operation's method and endpoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from harness.styles import openapi
from harness.web import LoopbackWeb, Reply, json_reply
from harness.web import Site as WebSite
from registry.db.tables import ActionRow, Site
from registry.model.urls import key_host
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(300)


def _agents_json(spec_url: str) -> str:
    return json.dumps(
        {
            "agentsJson": "0.1.0",
            "info": {"title": "Lantern", "version": "1", "description": "x"},
            "sources": [{"id": "post", "path": spec_url}],
            "flows": [
                {
                    "id": "send_flow",
                    "title": "Send a letter",
                    "description": "Send one.",
                    "actions": [{"id": "a", "sourceId": "post", "operationId": "send_letter"}],
                    "links": [],
                }
            ],
        }
    )


def _stored(data_dir: Path) -> dict[str, tuple[str | None, str | None]]:
    engine = create_engine(f"sqlite:///{data_dir / 'actiondex.db'}")
    with Session(engine) as session:
        rows = session.execute(
            select(Site.host, ActionRow.name, ActionRow.method, ActionRow.endpoint).join_from(
                ActionRow, Site
            )
        ).all()
    engine.dispose()
    return {f"{key_host(host)}/{name}": (method, endpoint) for host, name, method, endpoint in rows}


def test_wildcard_sources_on_another_host_are_read(tmp_path: Path) -> None:
    web = LoopbackWeb({})
    api = web.url("api.specs.test")[:-1]
    web.sites["wild.test"] = WebSite(
        {
            "/robots.txt": Reply(404),
            "/.well-known/agents.json": json_reply(_agents_json(api + "/openapi.json")),
        }
    )
    web.sites["api.specs.test"] = WebSite(
        {"/openapi.json": json_reply(openapi(api, "send_letter"))}
    )
    with web:
        summary = crawl(tmp_path, web, web.url("wild.test"))
        asked = web.requests("api.specs.test")
    assert "/openapi.json" in asked, summary["stderr"][-2000:]
    assert _stored(tmp_path) == {"wild.test/send_letter": ("POST", f"{api}/api/send_letter")}
