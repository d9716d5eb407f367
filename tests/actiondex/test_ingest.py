"""`actiondex ingest`: a folder's good files are stored whatever else sits beside them, each
placed on its site by the rule validate uses (registry.placement), its host an A-label."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from actiondex.ingest import ingest_paths
from actiondex.validating import validate_file
from api.app import create_app
from registry.config import Settings
from registry.db.engine import make_engine, migrate
from registry.db.tables import ActionRow, Document, Site
from tests.helpers.cli import run
from tests.helpers.paths import FIXTURES

MIXED = FIXTURES / "ingest" / "mixed"
SPOOF = "xn--pypal-4ve.test"  # the A-label of "p\u0430ypal.test", a Cyrillic "а"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(Settings(data_dir=tmp_path / "data"))
    migrate(engine)
    yield engine
    engine.dispose()


def stored(engine: Engine) -> dict[str, dict[str, str | None]]:
    """host -> action name -> endpoint."""
    found: dict[str, dict[str, str | None]] = {}
    with Session(engine) as session:
        for host, name, endpoint in session.execute(
            select(Site.host, ActionRow.name, ActionRow.endpoint).join_from(ActionRow, Site)
        ):
            found.setdefault(host, {})[name] = endpoint
    return found


def test_a_folder_of_good_and_bad_files_stores_the_good_ones(data_dir: Path) -> None:
    proc = run(data_dir, "ingest", str(MIXED), "--json")
    assert proc.returncode == 1, proc.stderr  # something was skipped
    summary = json.loads(proc.stdout)
    skipped = {Path(s["path"]).name: s["reason"] for s in summary["skipped"]}
    assert set(skipped) == {
        "bare.html",
        "broken.json",
        "no-site.json",
        "order.schema.json",
        "unknown.json",
    }  # README.md is no candidate at all
    assert "json-parse-error" in skipped["broken.json"]
    assert "unknown-format" in skipped["order.schema.json"]
    assert "unknown-format" in skipped["unknown.json"]
    assert "--origin" in skipped["no-site.json"] and "Schema.org" in skipped["bare.html"]
    assert {row["host"] for row in summary["per_site"]} == {"shop.example", "inkpot.example"}
    assert summary["actions"] == 2 and summary["errors"] == 0

    table = run(data_dir, "ingest", str(MIXED))
    assert table.returncode == 1
    assert "skipped" in table.stdout and "order.schema.json" in table.stdout


def test_the_spec_shaped_manifest_names_its_site_by_host(store: Engine) -> None:
    summary = ingest_paths(store, [MIXED / "agent-actions.json"], None)
    assert summary["skipped"] == [] and summary["changed_sites"] == ["shop.example"]
    assert stored(store) == {"shop.example": {"search_products": "https://shop.example/api/search"}}


def test_an_ai_plugin_is_placed_by_its_api_url(store: Engine) -> None:
    summary = ingest_paths(store, [MIXED / "ai-plugin.json"], None)
    assert summary["skipped"] == [] and stored(store) == {"inkpot.example": {"inkpot": None}}
    with Session(store) as session:
        urls = session.scalars(select(Document.url)).all()
    assert urls == ["https://inkpot.example/.well-known/ai-plugin.json"]


def test_origin_places_a_file_that_names_no_site(store: Engine) -> None:
    summary = ingest_paths(store, [MIXED / "no-site.json"], "ping.example")  # a bare host
    assert summary["skipped"] == []
    assert stored(store) == {"ping.example": {"ping": "https://ping.example/ping"}}


def test_a_confusable_host_is_its_a_label_and_flagged_everywhere(
    tmp_path: Path, store: Engine
) -> None:
    body = json.dumps(
        {
            "schema": "agent-actions/0.1",
            "site": "p\u0430ypal.test",
            "actions": [{"name": "pay", "method": "POST", "path": "/pay", "effect": "spend"}],
        }
    )
    manifest = tmp_path / "agent-actions.json"
    manifest.write_text(body, encoding="utf-8")

    summary = ingest_paths(store, [manifest], None)
    assert summary["per_site"][0]["host"] == SPOOF
    assert summary["per_site"][0]["errors"] == ["confusable-host"]
    assert stored(store) == {SPOOF: {"pay": f"https://{SPOOF}/pay"}}

    report = validate_file(manifest, None)
    assert report.url == f"https://{SPOOF}/.well-known/agent-actions.json"
    assert [(d.code, d.severity) for d in report.diagnostics] == [("confusable-host", "warning")]
    app = create_app(Settings(data_dir=tmp_path / "api"))
    with TestClient(app) as client:
        posted = client.post("/validate", content=body.encode()).json()
    assert [d["code"] for d in posted["diagnostics"]] == ["confusable-host"]
    assert posted["actions"][0]["endpoint"] == f"https://{SPOOF}/pay"


def test_hidden_folders_are_not_read_but_well_known_is(tmp_path: Path, store: Engine) -> None:
    site = tmp_path / "site"
    (site / ".git").mkdir(parents=True)
    (site / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (site / ".well-known").mkdir()
    (site / ".well-known" / "agent-actions.json").write_bytes(
        (MIXED / "agent-actions.json").read_bytes()
    )
    summary = ingest_paths(store, [site], None)
    assert summary["skipped"] == [] and summary["documents"] == 1


def test_operations_of_an_unread_source_are_found_but_not_callable(data_dir: Path) -> None:
    """A Wildcard agents.json whose OpenAPI source is elsewhere: each operation's effect is read
    from its name ("lantern_list_letters" reads, it does not write), with nothing to call."""
    manifest = FIXTURES / "wildcard-agents-json" / "prefixed-ids.json"
    assert run(data_dir, "ingest", str(manifest), "--origin", "post.example").returncode == 0
    # --effect read: the flows holding it (they delete) would fold it under them
    proc = run(data_dir, "find", "list letters", "--effect", "read", "--json")
    [found] = [r for r in json.loads(proc.stdout)["results"] if r["kind"] == "action"][:1]
    assert (found["name"], found["effect"]) == ("lantern_list_letters", "read")
    assert found["method"] is None and found["endpoint"] is None
