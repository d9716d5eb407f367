"""The ARD spec's own conformance tools (both versions, ../shared/specs/ard) pass against a
live `actiondex serve` over the shop and two ARD catalogs, and what the live server answers
validates against the spec's schemas (and percent-decoding happens exactly once)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from harness.procs import serving
from tests.helpers.ard import CATALOGS, SITES, SPEC, spec_validator
from tests.helpers.cli import run
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.timeout(300)
TOOLS = ("conformance", "conformance-main")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`actiondex serve` on loopback; yields its base URL (ending in /)."""
    data_dir = tmp_path_factory.mktemp("ard-live")
    assert run(data_dir, "ingest", str(FIXTURES / "ingest" / "shop")).returncode == 0
    for host, (_, name) in SITES.items():
        done = run(data_dir, "ingest", "--origin", f"https://{host}", str(CATALOGS / name))
        assert done.returncode == 0, done.stdout + done.stderr
    with serving(data_dir) as base:
        yield base + "/"


def fetch(url: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize("tool", TOOLS)
def test_the_conformance_tool_passes(live: str, tool: str) -> None:
    script = SPEC / tool / "bin" / "conformance-test"
    if not script.exists():
        pytest.skip(f"{script} is absent: the ARD spec lives in ../shared beside the clone")
    proc = subprocess.run(
        [sys.executable, str(script), "registry", live + "ard"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Failed" not in proc.stdout


def test_live_answers_validate_against_the_spec(live: str) -> None:
    status, page = fetch(
        live + "ard/search", {"query": {"text": "weather forecast tools"}, "pageSize": 100}
    )
    assert status == 200 and page["results"]
    spec_validator("SearchResponse").validate(page)
    status, listed = fetch(live + "ard/agents?pageSize=100")
    assert status == 200
    spec_validator("ListResponse").validate(listed)
    for entry in listed["items"]:
        status, found = fetch(live + "ard/agents/" + quote(entry["identifier"], safe=""))
        assert status == 200 and found["identifier"] == entry["identifier"]
        spec_validator("ArdEntry").validate(found)
    status, facets = fetch(live + "ard/explore", {"resultType": {"facets": [{"field": "type"}]}})
    assert status == 200
    spec_validator("ExploreResponse").validate(facets)
    status, catalog = fetch(live + ".well-known/ard.json")
    assert catalog["entries"][0]["url"] == live + "ard"


def test_the_identifier_is_decoded_once(live: str) -> None:
    twice = quote(quote("urn:air:weather.example:server:forecast", safe=""), safe="")
    status, body = fetch(live + "ard/agents/" + twice)
    assert (status, body["errorCode"]) == (400, "INVALID_ARGUMENT")
    status, body = fetch(live + "ard/agents/urn:air:weather.example:server:forecast")
    assert status == 200  # unencoded colons are the same segment


def test_our_catalog_is_read_by_our_own_normaliser(live: str, tmp_path: Path) -> None:
    """What we publish at /.well-known/ard.json is a catalog our crawler reads."""
    with urllib.request.urlopen(live + ".well-known/ard.json", timeout=10) as response:
        (tmp_path / "ard.json").write_bytes(response.read())
    done = run(
        tmp_path / "data",
        "validate",
        "--json",
        "--origin",
        live.rstrip("/"),
        str(tmp_path / "ard.json"),
    )
    report = json.loads(done.stdout)
    assert report["format"] == "ard" and len(report["actions"]) == 1, report
