"""The command line as a user meets it: help, one-line errors, ingest -> find, on both databases.

Commands run in a subprocess through `python -m actiondex`, the real entry point.
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import one_line_error, run
from tests.helpers.paths import FIXTURES

INGEST = FIXTURES / "ingest"
COMMANDS = [
    "demo",
    "crawl",
    "ingest",
    "index",
    "find",
    "validate",
    "serve",
    "mcp",
    "migrate",
    "history",
    "sites",
    "sites remove",
]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    if request.param == "sqlite":
        return ""
    return str(request.getfixturevalue("empty_pg_url"))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_explains_itself(data_dir: Path, command: str) -> None:
    proc = run(data_dir, *command.split(), "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout and len(proc.stdout.splitlines()) > 4


def test_ingest_then_find(data_dir: Path, db_url: str) -> None:
    if db_url:
        assert run(data_dir, "migrate", db_url=db_url).returncode == 0
    proc = run(data_dir, "ingest", str(INGEST / "shop"), "--json", db_url=db_url)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert {k: summary[k] for k in ("sites", "documents", "actions", "flows", "errors")} == {
        "sites": 1,
        "documents": 1,
        "actions": 2,
        "flows": 1,
        "errors": 0,
    }

    proc = run(data_dir, "find", "order printer paper", "--json", db_url=db_url)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert found["query"] == "order printer paper"
    top = found["results"][0]
    assert top["site"] == "inkwell.example"
    assert top["name"] in ("place_order", "order_stationery")
    assert top["source"] == {
        "url": "https://inkwell.example/.well-known/agent-actions.json",
        "format": "agent-actions",
    }
    assert top["endpoint"] is None or top["endpoint"].startswith("https://inkwell.example/")

    proc = run(data_dir, "find", "order", "--effect", "read", "--json", db_url=db_url)
    assert {r["effect"] for r in json.loads(proc.stdout)["results"]} <= {"read"}


def test_ingest_again_changes_nothing(data_dir: Path) -> None:
    run(data_dir, "ingest", str(INGEST / "shop"))
    proc = run(data_dir, "ingest", str(INGEST / "shop"), "--json")
    assert json.loads(proc.stdout)["changed_sites"] == []


def test_ingest_without_origin_skips_the_file_and_says_how(data_dir: Path) -> None:
    proc = run(data_dir, "ingest", str(INGEST / "noorigin"), "--json")
    [skipped] = json.loads(proc.stdout)["skipped"]
    assert proc.returncode == 1 and "--origin" in skipped["reason"]
    proc = run(
        data_dir, "ingest", str(INGEST / "noorigin"), "--origin", "https://ping.example", "--json"
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["actions"] == 1
    assert json.loads(proc.stdout)["skipped"] == []


@pytest.mark.parametrize(
    "args,expect",
    [
        (["find", "x", "--effect", "steal"], "--effect: Input should be 'read'"),
        (["find", "   "], "empty"),
        (["ingest", "/no/such/file"], "no such file"),
        (["crawl", "http://127.0.0.1:9/"], "refused"),
        (["crawl", "http://example.com:0/"], "port that is not a number from 1 to 65535"),
        (["crawl", "https://shop.example/%0D%0A"], "control characters"),
        (["crawl", "example.test", "--resolve", "nonsense"], "--resolve"),
    ],
)
def test_bad_input_is_one_line(data_dir: Path, args: list[str], expect: str) -> None:
    assert expect in one_line_error(run(data_dir, *args))


def test_private_target_refusal_names_target_and_reason(data_dir: Path) -> None:
    line = one_line_error(run(data_dir, "crawl", "http://127.0.0.1:9/"))
    assert line.startswith("actiondex: error: refused http://127.0.0.1:9/: ")
    assert len(line) > len("actiondex: error: refused http://127.0.0.1:9/: ") + 5


def test_bad_database_url_is_one_line(data_dir: Path) -> None:
    line = one_line_error(run(data_dir, "find", "x", db_url="mysql://nope"))
    assert "ACTIONDEX_DATABASE_URL" in line


def test_server_database_must_be_migrated_first(data_dir: Path, empty_pg_url: str) -> None:
    line = one_line_error(run(data_dir, "find", "x", db_url=empty_pg_url))
    assert "actiondex migrate" in line


UNREACHABLE_PG = "postgresql://postgres@127.0.0.1:1/none"  # nothing listens on port 1


def one_json_error(proc: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """``--json`` failures: exactly one JSON object on stdout, nothing on stderr."""
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == ""
    body = json.loads(proc.stdout)
    assert list(body) == ["error"] and body["error"]["message"]
    return dict(body["error"])


@pytest.mark.parametrize(
    "args,code,expect",
    [
        (["find", "", "--json"], "bad-input", "empty"),
        (["find", "x", "--effect", "bogus", "--json"], "bad-input", "--effect"),
        (["find", "x", "--limit", "0", "--json"], "bad-input", "--limit"),
        (["find", "x", "--json", "--bogus"], "bad-input", "--bogus"),
    ],
)
def test_json_failures_print_one_json_error(
    data_dir: Path, args: list[str], code: str, expect: str
) -> None:
    error = one_json_error(run(data_dir, *args))
    assert error["code"] == code and expect in error["message"]


def test_a_crawl_without_its_database_prints_one_json_error(data_dir: Path) -> None:
    proc = run(
        data_dir,
        "crawl",
        "http://shop.test:8/",
        "--resolve",
        "shop.test:8:127.0.0.1",
        "--json",
        db_url=UNREACHABLE_PG,
    )
    error = one_json_error(proc)
    assert "database" in error["message"] and "Connection refused" in error["message"]


@pytest.mark.parametrize(
    "args,expect",
    [
        (["serve", "--port", "99999"], "--port"),
        (["demo", "--port", "0"], "--port"),
        (["migrate"], "cannot reach the database"),
        (["nosuch"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(data_dir: Path, args: list[str], expect: str) -> None:
    proc = run(data_dir, *args, db_url=UNREACHABLE_PG)
    assert expect in one_line_error(proc) and proc.returncode == 2


def test_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    for data_dir in (afile, afile / "below"):
        proc = run(data_dir, "find", "x")
        assert "not a folder" in one_line_error(proc) and proc.returncode == 2
    assert afile.read_text() == "not a folder"


def test_find_on_an_empty_store_says_which_store_it_searched(data_dir: Path) -> None:
    (data_dir / "demo" / "index").mkdir(parents=True)  # what `actiondex demo` leaves
    proc = run(data_dir, "find", "buy printer paper")
    assert proc.returncode == 0
    assert f"the store in {data_dir} holds no actions" in proc.stderr
    assert f"--data-dir {data_dir / 'demo'}" in proc.stderr


def test_serve_refuses_a_port_another_server_listens_on(data_dir: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run(data_dir, "serve", "--port", str(port))
    assert f"cannot listen on 127.0.0.1:{port}" in one_line_error(proc)
    assert proc.returncode == 2
