"""Doors of the command line a new user walks into (issue 21): each answers in one clear line."""

from __future__ import annotations

import json
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
