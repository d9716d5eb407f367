"""`actiondex ingest` normalises each file once (issue 24: it normalised every manifest three
times, to check it, to learn what it references, then to store it): the first pass is the
stored manifest unless the document can read a file found beside it, as in a crawl."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from actiondex import ingest
from actiondex.ingest import ingest_paths
from harness.db import engine_for
from registry import normalising
from registry.db.engine import migrate, reading
from registry.store.lookup import site_detail
from tests.helpers.validate import FILES


def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every normaliser run of the ingest, by document URL."""
    calls: Counter[str] = Counter()
    real = normalising.normalise

    def normalise(doc: Any, *args: Any, **kwargs: Any) -> Any:
        calls[doc.url] += 1
        return real(doc, *args, **kwargs)

    monkeypatch.setattr(normalising, "normalise", normalise)
    monkeypatch.setattr(ingest, "normalise", normalise, raising=False)
    return calls


def manifest(host: str, names: list[str]) -> dict[str, Any]:
    actions = [{"name": n, "description": f"{n} on {host}", "effect": "read"} for n in names]
    site = {"name": host, "url": f"https://{host}"}
    return {"schema": "agent-actions/0.1", "site": site, "actions": actions}


def test_each_manifest_is_normalised_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "manifests"
    for i in range(3):
        (folder / f"s{i}").mkdir(parents=True)
        body = manifest(f"s{i}.example", ["find_things", "book_thing"])
        (folder / f"s{i}" / "agent-actions.json").write_text(json.dumps(body))
    engine = engine_for(f"sqlite:///{tmp_path / 'store.db'}", tmp_path)
    migrate(engine)
    calls = counted(monkeypatch)
    summary = ingest_paths(engine, [folder], None)
    assert summary["actions"] == 6 and summary["skipped"] == []
    assert sorted(calls.values()) == [1, 1, 1], calls
    with reading(engine) as session:
        site = site_detail(session, "s1.example")
    assert site is not None
    assert {a["name"] for a in site["actions"]} == {"find_things", "book_thing"}
    engine.dispose()


def test_a_manifest_reading_a_file_beside_it_is_normalised_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'store.db'}", tmp_path)
    migrate(engine)
    calls = counted(monkeypatch)
    summary = ingest_paths(engine, [FILES / "site" / ".well-known" / "ai-plugin.json"], None)
    assert summary["skipped"] == []
    # the plugin: alone (what it asks to read), then reading its OpenAPI; the OpenAPI once
    assert calls == {
        "https://inkpot.example/.well-known/ai-plugin.json": 2,
        "https://inkpot.example/openapi.json": 1,
    }, calls
    with reading(engine) as session:
        site = site_detail(session, "inkpot.example")
    assert site is not None
    assert {a["name"] for a in site["actions"]} == {"inkpot", "searchInks"}
    engine.dispose()
