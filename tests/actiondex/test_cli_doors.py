"""Doors of the command line a new user walks into (issue 21): each answers in one clear line."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from harness.procs import AX, env_for
from tests.helpers.cli import one_line_error, run
from tests.helpers.paths import FIXTURES

SHOP = FIXTURES / "ingest" / "shop"


@pytest.mark.parametrize(
    ("setting", "says"),
    [("--data-dir", "the data dir"), ("ACTIONDEX_INDEX_DIR", "the index dir")],
)
def test_a_folder_that_cannot_be_made_is_one_line_and_exit_2(
    data_dir: Path, setting: str, says: str
) -> None:
    env = env_for(data_dir)
    if setting.startswith("--"):
        args = [*AX, setting, "/proc/nope", "find", "x"]
    else:
        env[setting] = "/proc/nope"
        args = [*AX, "find", "x"]
    proc = subprocess.run(args, env=env, text=True, capture_output=True, timeout=120)
    line = one_line_error(proc)
    assert proc.returncode == 2, proc.stderr
    assert says in line and "/proc/nope" in line and "FileNotFoundError" not in line, line


def test_validate_a_folder_reads_each_file_ingest_would(data_dir: Path) -> None:
    proc = run(data_dir, "validate", str(SHOP), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["folder"] == str(SHOP)
    urls = [document["url"] for document in report["documents"]]
    assert urls == ["https://inkwell.example/.well-known/agent-actions.json"]
    said = run(data_dir, "validate", str(SHOP)).stdout
    assert "place_order" in said and "No errors" in said


def test_validate_a_folder_without_manifests_says_it_is_a_folder(
    data_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.md").write_text("nothing here")
    line = one_line_error(run(data_dir, "validate", str(tmp_path)))
    assert f"{tmp_path} is a folder without manifest or page files" in line, line


def test_ingest_a_bakery_page_takes_its_site_from_its_url(data_dir: Path, tmp_path: Path) -> None:
    item = {
        "@context": "https://schema.org",
        "@type": "Bakery",
        "name": "Crumb Bakery",
        "url": "https://crumb.example/",
        "potentialAction": {
            "@type": "OrderAction",
            "target": {"@type": "EntryPoint", "urlTemplate": "https://crumb.example/o?i={i}"},
            "query-input": "required name=i",
        },
    }
    page = tmp_path / "bakery.html"
    page.write_text(f'<html><script type="application/ld+json">{json.dumps(item)}</script></html>')
    proc = run(data_dir, "ingest", str(page), "--json")
    assert proc.returncode == 0, proc.stderr
    assert [row["host"] for row in json.loads(proc.stdout)["per_site"]] == ["crumb.example"]


HELPS = ["crawl", "worker", "find", "submit", "ingest", "history", "sites remove", "mcp"]


def test_help_reads_as_prose_with_value_names_people_know(data_dir: Path) -> None:
    env = {**env_for(data_dir), "COLUMNS": "200"}
    for command in HELPS:
        proc = subprocess.run(
            [*AX, *command.split(), "--help"], env=env, text=True, capture_output=True, timeout=60
        )
        said = proc.stdout
        assert proc.returncode == 0 and "Usage" in said, proc.stderr
        assert "<bool>" not in said and "<list[" not in said and "<str>" not in said, command
        assert not re.search(r"\w \.(\s|$)", said), (command, said)  # "first ." once
        # each paragraph on one line at 200 columns: no line of prose breaks early
        top = said.split("╭")[0].splitlines()
        prose = [line.strip() for line in top if line.strip() and "Usage" not in line]
        assert all(len(line) > 100 or line.endswith(".") for line in prose), (command, prose)


def test_one_result_is_singular(data_dir: Path) -> None:
    proc = run(data_dir, "ingest", str(SHOP))
    assert proc.returncode == 0 and "1 site " in proc.stdout, proc.stdout
    said = run(data_dir, "find", "place an order", "--limit", "1").stdout
    assert "1 result in" in said and "1 results" not in said, said
