"""One rule for the files beside a manifest (issue 21): `validate ai-plugin.json` read the
OpenAPI beside it and said nothing, `ingest` of the same file did not read it. Both read it
now (actiondex.beside), and both say so. In-process: no CLI subprocess."""

from __future__ import annotations

from pathlib import Path

from actiondex.ingest import ingest_paths
from actiondex.validating import validate_file
from harness.db import engine_for
from registry.db.engine import migrate, reading
from registry.store.lookup import site_detail
from tests.helpers.validate import FILES

PLUGIN = FILES / "site" / ".well-known" / "ai-plugin.json"
OPENAPI = FILES / "site" / "openapi.json"


def test_validate_says_which_file_it_read_beside() -> None:
    report = validate_file(PLUGIN, None)
    assert {a.name for a in report.actions} == {"inkpot", "searchInks"}
    [note] = [d for d in report.diagnostics if d.code == "read-local-file"]
    assert note.severity == "info" and str(OPENAPI.resolve()) in note.message
    assert "https://inkpot.example/openapi.json" in note.message


def test_ingest_reads_the_same_file_and_lists_it(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'store.db'}", tmp_path)
    migrate(engine)
    for paths in ([PLUGIN], [FILES / "site"]):  # the file alone, then its folder
        summary = ingest_paths(engine, paths, None)
        assert summary["skipped"] == [], summary
        assert summary["read_beside"] == [
            {
                "path": str(OPENAPI.resolve()),
                "url": "https://inkpot.example/openapi.json",
                "by": str(PLUGIN),
            }
        ]
        with reading(engine) as session:
            site = site_detail(session, "inkpot.example")
        assert site is not None
        assert {a["name"] for a in site["actions"]} == {"inkpot", "searchInks"}, paths
    engine.dispose()
