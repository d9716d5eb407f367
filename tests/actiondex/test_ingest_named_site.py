"""Seed 000's Minimal Example, a WebSite with a name and description and no potentialAction,
is "a valid agents.json": `actiondex ingest` stores the site (its name and description are what
agents match intents against) instead of skipping the file."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from actiondex.ingest import ingest_paths
from api.app import create_app
from registry.config import Settings
from registry.db.engine import make_engine, migrate
from tests.helpers.seeds import seed_examples


def test_a_website_with_no_action_is_stored_with_its_name(tmp_path: Path) -> None:
    minimal = seed_examples("000")[0]
    assert minimal["@type"] == "WebSite" and "potentialAction" not in minimal
    path = tmp_path / "agents.json"
    path.write_text(json.dumps(minimal), encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data")
    engine = make_engine(settings)
    migrate(engine)
    summary = ingest_paths(engine, [path], None)
    engine.dispose()
    assert summary["skipped"] == [], summary["skipped"]
    assert summary["changed_sites"] == ["news.ycombinator.com"]
    with TestClient(create_app(settings)) as client:
        site = client.get("/sites/news.ycombinator.com").json()
    assert site["name"] == minimal["name"]
    assert site["description"] == minimal["description"]
