"""A site is its origin (issue 20): the scheme and port that served a manifest are the base of
its bare-host ``site``'s paths, so prepare plans the call to the server that is the site."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from api.app import create_app
from harness.web import LoopbackWeb, Reply, json_reply
from harness.web import Site as WebSite
from registry.config import Settings
from registry.db.tables import ActionRow, Site
from tests.helpers.paths import SHARED
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(300)
SEEDS = SHARED / "seeds"


def seed_manifest() -> dict[str, Any]:
    """Seed 002's agent-actions manifest, exactly as printed (its first JSON block)."""
    path = SEEDS / "002_009a176320e327b1.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent: the seeds are read in place from ../shared")
    found = re.search(r"```json\n(.*?)\n```", path.read_text(), re.DOTALL)
    assert found, "seed 002 has no JSON example"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _actions(data_dir: Path) -> dict[str, tuple[str, str | None]]:
    engine = create_engine(f"sqlite:///{data_dir / 'actiondex.db'}")
    with Session(engine) as session:
        rows = session.execute(
            select(ActionRow.name, ActionRow.id, ActionRow.endpoint).join_from(ActionRow, Site)
        ).all()
    engine.dispose()
    return {name: (ident, endpoint) for name, ident, endpoint in rows}


def test_a_bare_host_site_resolves_against_the_origin_that_served_it(tmp_path: Path) -> None:
    manifest = seed_manifest()
    assert manifest["site"] == "shop.example"  # the bare host the regression is about
    web = LoopbackWeb(
        {
            "shop.example": WebSite(
                {
                    "/robots.txt": Reply(404),
                    "/.well-known/agent-actions.json": json_reply(json.dumps(manifest)),
                }
            )
        }
    )
    with web:
        summary = crawl(tmp_path, web, web.url("shop.example"))
    served = web.url("shop.example", "")  # http://shop.example:PORT
    ident, endpoint = _actions(tmp_path).get("add_to_cart", ("", None))
    assert endpoint == f"{served}/api/cart", summary["stderr"][-2000:]

    app = create_app(Settings(data_dir=tmp_path))
    with TestClient(app) as client:
        planned = client.post(
            f"/actions/{ident}/prepare", json={"input": {"product_id": "p-1", "quantity": 2}}
        )
    assert planned.status_code == 200, planned.text
    assert planned.json()["url"] == f"{served}/api/cart"
    assert planned.json()["method"] == "POST"
