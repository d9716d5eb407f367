"""`actiondex submit` through the real entry point: the JSON shape, duplicates, refusals as
one line (or one JSON error object) with exit code 2, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import one_line_error, run

KEYS = {
    "id",
    "url",
    "host",
    "status",
    "reason",
    "errors",
    "actions",
    "created_at",
    "started_at",
    "finished_at",
    "link",
    "created",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, data_dir: Path) -> str:
    if request.param == "sqlite":
        return ""
    url = str(request.getfixturevalue("empty_pg_url"))
    assert run(data_dir, "migrate", db_url=url).returncode == 0
    return url


def test_submit_queues_once_and_prints_one_json_object(data_dir: Path, db_url: str) -> None:
    first = run(data_dir, "submit", "--json", "https://Shop.example/catalog", db_url=db_url)
    assert first.returncode == 0, first.stderr
    body = json.loads(first.stdout)
    assert set(body) == KEYS and body["created"] is True
    assert (body["status"], body["host"], body["url"]) == (
        "queued",
        "shop.example",
        "https://shop.example/",
    )  # the site's homepage only
    again = json.loads(run(data_dir, "submit", "--json", "shop.example", db_url=db_url).stdout)
    assert again["created"] is False and again["id"] == body["id"]


def test_submit_for_people_says_what_happened(data_dir: Path, db_url: str) -> None:
    proc = run(data_dir, "submit", "news.example", db_url=db_url)
    assert proc.returncode == 0 and proc.stdout.startswith("queued: https://news.example/")
    # what picks it up: on PostgreSQL the scheduler and its workers, else `crawl --due`
    if db_url:
        assert "`actiondex schedule`" in proc.stdout and "`actiondex worker`" in proc.stdout
        assert "crawl --due" not in proc.stdout
    else:
        assert "crawled by the next `actiondex crawl --due`" in proc.stdout
    again = run(data_dir, "submit", "news.example", db_url=db_url)
    assert again.stdout.startswith("already queued: ")


@pytest.mark.parametrize(
    "url,says",
    [
        ("http://127.0.0.1:9/", "non-public address"),
        ("localhost", "loopback name"),
        ("not a url!!", "is not a domain or an http(s) URL"),
        ("http://example.com:0/", "port that is not a number from 1 to 65535"),
        ("https://shop.example/%0d%0aX:%201", "control characters"),
    ],
)
def test_refused_urls_exit_2(data_dir: Path, url: str, says: str) -> None:
    proc = run(data_dir, "submit", "--", url)
    assert proc.returncode == 2 and says in one_line_error(proc)
    proc = run(data_dir, "submit", "--json", "--", url)
    error = json.loads(proc.stdout)
    assert proc.returncode == 2 and set(error) == {"error"}
    assert error["error"]["code"] == "refused" and says in error["error"]["message"]


def test_allow_private_lets_an_operator_submit_a_private_site(data_dir: Path) -> None:
    proc = run(data_dir, "submit", "--json", "--allow-private", "http://10.0.0.5:8080/")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["url"] == "http://10.0.0.5:8080/"
    assert run(data_dir, "submit", "http://10.0.0.6:8080/").returncode == 2


def test_the_cli_is_not_rate_limited(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONDEX_SUBMIT_PER_DOMAIN", "1")
    monkeypatch.setenv("ACTIONDEX_SUBMIT_PER_CLIENT", "1")
    for host in ("a.example.org", "b.example.org"):
        proc = run(data_dir, "submit", "--json", host)
        assert proc.returncode == 0 and json.loads(proc.stdout)["created"], proc.stdout
