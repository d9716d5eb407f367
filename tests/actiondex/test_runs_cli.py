"""`actiondex runs`: the crawl runs newest first, the status filter, a table for people and
one JSON object for programs, bad input in one line; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from harness.db import engine_for
from registry.db.engine import migrate, transaction
from registry.store.crawl_state import finish_run, start_run
from tests.helpers.cli import one_line_error, run


def _store_runs(db_url: str, data_dir: Path) -> list[int]:
    engine = engine_for(db_url, data_dir)
    migrate(engine)
    with transaction(engine) as session:
        ids = [start_run(session, "crawl", ["a.example"]) for _ in range(3)]
        finish_run(
            session,
            ids[0],
            {
                "sites": 1,
                "actions": 4,
                "errors": 0,
                "requests": 9,
                "seconds": 0.5,
                "changed_sites": ["a.example"],
            },
        )
        finish_run(session, ids[1], {"sites": 1}, status="aborted")
    engine.dispose()
    return ids


def test_runs_lists_newest_first_and_filters(tmp_path: Path, empty_db_url: str) -> None:
    ids = _store_runs(empty_db_url, tmp_path)
    every = run(tmp_path, "runs", "--json", db_url=empty_db_url)
    assert every.returncode == 0, every.stderr
    items = json.loads(every.stdout)["items"]
    assert [r["id"] for r in items] == ids[::-1]
    assert [r["status"] for r in items] == ["running", "aborted", "finished"]
    assert (items[2]["actions"], items[2]["requests"], items[2]["changed_sites"]) == (
        4,
        9,
        ["a.example"],
    )
    aborted = run(tmp_path, "runs", "--json", "--status", "aborted", db_url=empty_db_url)
    assert [r["id"] for r in json.loads(aborted.stdout)["items"]] == [ids[1]]
    page = json.loads(run(tmp_path, "runs", "--json", "--limit", "1", db_url=empty_db_url).stdout)
    assert [r["id"] for r in page["items"]] == [ids[2]] and page["next_cursor"] == str(ids[2])
    table = run(tmp_path, "runs", db_url=empty_db_url)
    assert table.returncode == 0
    cells = [
        line.split("│")[1].strip() for line in table.stdout.splitlines() if line.startswith("│")
    ]  # the rows (the header row is drawn with ┃)
    assert cells == [str(i) for i in ids[::-1]]
    assert "finished" in table.stdout and "aborted" in table.stdout


def test_runs_bad_status_is_one_line_and_nothing_yet_says_so(tmp_path: Path) -> None:
    bad = run(tmp_path, "runs", "--status", "lost")
    assert bad.returncode == 2
    assert "status must be one of running, finished, failed, aborted" in one_line_error(bad)
    as_json = run(tmp_path, "runs", "--json", "--status", "lost")
    assert json.loads(as_json.stdout)["error"]["code"] == "bad-input"
    empty = run(tmp_path, "runs")
    assert empty.returncode == 0 and empty.stderr.strip() == "no crawl runs yet"
