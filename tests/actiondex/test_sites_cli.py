"""`actiondex sites remove HOST` and `actiondex history HOST` through `python -m actiondex`:
a removal is recorded, a second one says so, unknown hosts are one line, an ingest brings the
site back, and the history lists it all newest first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers.cli import one_line_error, run
from tests.helpers.paths import FIXTURES

SHOP = "paperworks.example"


def _json(data_dir: Path, *args: str) -> dict[str, Any]:
    proc = run(data_dir, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _ingest(data_dir: Path) -> None:
    proc = run(data_dir, "ingest", str(FIXTURES / "ingest" / "checkout"))
    assert proc.returncode == 0, proc.stderr


def _found(data_dir: Path) -> set[str]:
    return {r["site"] for r in _json(data_dir, "find", "printer paper")["results"]}


def test_remove_is_recorded_and_an_ingest_brings_the_site_back(tmp_path: Path) -> None:
    _ingest(tmp_path)
    assert _found(tmp_path) == {SHOP}
    done = _json(tmp_path, "sites", "remove", "Paperworks.Example")
    assert (done["host"], done["already_removed"], done["version"]) == (SHOP, False, 2)
    assert done["actions"] >= 2 and done["documents"] == 1
    assert _found(tmp_path) == set()  # the index dropped it
    again = run(tmp_path, "sites", "remove", SHOP)
    assert again.returncode == 0 and "removed already" in again.stderr, again.stderr
    history = _json(tmp_path, "history", SHOP)
    assert history["removed_at"] == done["removed_at"]
    removed, ingested = history["items"]
    assert (removed["reason"], removed["actions"], removed["version"]) == ("removed", 0, 2)
    assert sorted(removed["removed"]) == sorted(ingested["added"]) and ingested["added"]
    assert ingested["reason"] == "ingest"
    _ingest(tmp_path)  # an explicit ingest brings it back
    back = _json(tmp_path, "history", SHOP, "--limit", "1")
    assert back["removed_at"] is None and back["next_cursor"] is not None
    assert [(e["reason"], e["version"], e["added"]) for e in back["items"]] == [
        ("ingest", 3, ingested["added"])
    ]
    assert _found(tmp_path) == {SHOP}
    table = run(tmp_path, "history", SHOP)
    assert table.returncode == 0 and "ingest" in table.stdout and "removed" in table.stdout


def test_unknown_hosts_and_bad_input_are_one_line(tmp_path: Path) -> None:
    _ingest(tmp_path)
    for args in (
        ("sites", "remove", "nowhere.example"),
        ("history", "nowhere.example"),
        ("sites", "remove", "not a host!!"),
        ("history", SHOP, "--limit", "0"),
    ):
        proc = run(tmp_path, *args)
        assert proc.returncode == 2, args
        line = one_line_error(proc)
        assert line.startswith("actiondex: error: "), line
    proc = run(tmp_path, "sites", "remove", "nowhere.example", "--json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["code"] == "bad-input"
    assert "nowhere.example" in json.loads(proc.stdout)["error"]["message"]
    assert _json(tmp_path, "history", SHOP)["items"][0]["reason"] == "ingest"  # untouched


def test_sites_alone_shows_its_help(tmp_path: Path) -> None:
    proc = run(tmp_path, "sites")
    assert proc.returncode == 0 and "remove" in proc.stdout and "Withdraw a site" in proc.stdout
