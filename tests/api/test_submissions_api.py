"""POST /submissions and GET /submissions/{id} on SQLite and PostgreSQL: the lifecycle
queued -> crawling -> done through a real `actiondex crawl` of loopback sites, failed crawls
with their reason, duplicates, the address guard, both rate limits, the error shapes."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from actiondex.submitting import target_check
from api.app import create_app
from harness.db import BACKENDS, engine_for, fresh_pg_database
from harness.procs import AX, env_for
from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, Site, json_reply
from registry.config import Settings
from registry.db.engine import migrate, reading
from registry.db.tables import Submission

pytestmark = pytest.mark.timeout(300)
MANIFEST = "/.well-known/agent-actions.json"
# alpha.test answers its manifest slowly (within the crawler's 3 s for well-known files), so
# its submission is seen `crawling` for a while.
SLOW_MANIFEST = json_reply(agent_actions("alpha"))
SLOW_MANIFEST.delay = 1.5
SITES = {
    "alpha.test": Site({MANIFEST: SLOW_MANIFEST}),
    "empty.test": Site(),
    "closed.test": Site({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /\n")}),
    "broken.test": Site({MANIFEST: json_reply("{not json")}),
}


@dataclass
class Store:
    url: str
    engine: Engine
    data: Path
    web: LoopbackWeb

    def settings(self, **extra: Any) -> Settings:
        return Settings(data_dir=self.data, rate_limit=0, resolve=self.web.resolve_args(), **extra)

    def client(self, check: bool = True, **extra: Any) -> TestClient:
        settings = self.settings(**extra)
        app = create_app(
            settings, engine=self.engine, target_check=target_check(settings) if check else None
        )
        return TestClient(app, raise_server_exceptions=False)

    def crawl(self, *hosts: str) -> subprocess.Popen[str]:
        flags = [a for e in self.web.resolve_args() for a in ("--resolve", e)]
        return subprocess.Popen(
            [*AX, "crawl", "--json", "--delay", "0", *flags, *(self.web.url(h) for h in hosts)],
            env=env_for(self.data, self.url),
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def count(self) -> int:
        with reading(self.engine) as session:
            return session.scalar(select(func.count()).select_from(Submission)) or 0


@pytest.fixture(scope="module")
def web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb(SITES) as served:
        yield served


@pytest.fixture(scope="module", params=BACKENDS)
def store(
    request: pytest.FixtureRequest, web: LoopbackWeb, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    data = tmp_path_factory.mktemp("submit")
    if request.param == "sqlite":
        yield from _store(f"sqlite:///{data / 'actiondex.db'}", data, web)
    else:
        with fresh_pg_database(f"actiondex_s{os.getpid()}") as url:
            yield from _store(url, data, web)


def _store(url: str, data: Path, web: LoopbackWeb) -> Iterator[Store]:
    engine = engine_for(url, data)
    migrate(engine)
    yield Store(url, engine, data, web)
    engine.dispose()


def _wait(proc: subprocess.Popen[str]) -> None:
    out, err = proc.communicate(timeout=180)
    assert proc.returncode in (0, 1), err
    assert out.strip(), err


def test_a_submission_is_queued_crawled_and_done(store: Store) -> None:
    with store.client() as client:
        posted = client.post("/submissions", json={"url": store.web.url("alpha.test")})
        assert posted.status_code == 202, posted.text
        body = posted.json()
        alpha = f"alpha.test:{store.web.port}"  # the site key: host:port off the default port
        assert body["status"] == "queued" and body["host"] == alpha
        assert posted.headers["location"] == body["link"] == f"/submissions/{body['id']}"
        again = client.post("/submissions", json={"url": store.web.url("alpha.test", "/x")})
        assert again.status_code == 200 and again.json() == {
            "host": alpha,
            "status": "queued",
        }
        seen = {client.get(body["link"]).json()["status"]}
        crawl = store.crawl("alpha.test")
        while crawl.poll() is None:
            seen.add(client.get(body["link"]).json()["status"])
            time.sleep(0.05)
        _wait(crawl)
        done = client.get(body["link"]).json()
    assert seen >= {"queued", "crawling"}, seen
    assert done["status"] == "done" and done["reason"] is None, done
    assert done["started_at"] and done["finished_at"] >= done["started_at"]
    [action] = done["actions"]
    assert action["name"] == "alpha" and action["url"] == f"/actions/{action['id']}"
    with store.client() as client:
        assert client.get(action["url"]).json()["name"] == "alpha"
        # done, so the host is open to a new submission
        assert (
            client.post("/submissions", json={"url": store.web.url("alpha.test")}).status_code
            == 202
        )


def test_failed_crawls_say_why(store: Store) -> None:
    hosts = ("empty.test", "closed.test", "broken.test")
    with store.client() as client:
        links = {
            h: client.post("/submissions", json={"url": store.web.url(h)}).json()["link"]
            for h in hosts
        }
        _wait(store.crawl(*hosts))
        got = {h: client.get(link).json() for h, link in links.items()}
    assert {g["status"] for g in got.values()} == {"failed"}, got
    port = store.web.port  # the site key: host:port off the default port
    assert got["empty.test"]["reason"].startswith(f"no actions found on empty.test:{port}")
    assert f"robots.txt on closed.test:{port} disallows" in got["closed.test"]["reason"]
    assert "robots-disallowed" in got["closed.test"]["errors"]
    assert "json-parse-error" in got["broken.test"]["reason"]
    assert all(g["actions"] == [] and g["finished_at"] for g in got.values())


@pytest.mark.parametrize(
    "url,says",
    [
        ("http://127.0.0.1/", "non-public address"),
        ("http://[::1]:8080/", "non-public address"),
        ("http://10.0.0.1/", "non-public address"),
        ("http://169.254.169.254/latest/", "non-public address"),
        ("http://0x7f.1/", "non-public address"),
        ("http://[::ffff:127.0.0.1]/", "non-public address"),
        ("http://localhost:8000/", "loopback name"),
        ("http://user:pass@shop.example/", "credentials"),
        ("http://shop.example:22/", "not a web port"),
        ("ftp://shop.example/", "not a domain or an http(s) URL"),
        ("not a url!!", "not a domain or an http(s) URL"),
        # issue 25 item 10: port 0 meant the default port; CR/LF were stored and echoed
        ("http://example.com:0/", "port that is not a number from 1 to 65535"),
        ("http://example.com:65536/", "port that is not a number from 1 to 65535"),
        ("https://shop.example/\r\nX-Injected: 1", "control characters"),
        ("https://shop.example/%0d%0aX-Injected:%201", "control characters"),
    ],
)
def test_refused_addresses_are_403_with_a_reason(store: Store, url: str, says: str) -> None:
    """403, not 422 (issue 21, schemathesis): any string is a url the schema takes, so a url
    the address guard refuses is a refusal by policy, not a request that breaks the schema."""
    before = store.count()
    with store.client() as client:
        response = client.post("/submissions", json={"url": url})
    error = response.json()["error"]
    assert response.status_code == 403 and error["code"] == "refused", response.text
    assert error["field"] == "url" and says in error["message"] and "\n" not in error["message"]
    assert store.count() == before


def test_a_duplicate_tells_another_submitter_only_the_host_and_status(store: Store) -> None:
    """Issue 25 item 8: a resubmission used to answer the first submission whole: its id (the
    token that follows it) and its URL with the query (``/admin/reset?token=...``)."""
    secret = "https://vault.example/admin/reset?token=s3cr3t-t0ken#step"
    with store.client() as client:
        first = client.post("/submissions", json={"url": secret})
        again = client.post("/submissions", json={"url": "vault.example"})
        mine = client.get(first.json()["link"]).json()
    assert first.status_code == 202 and first.json()["url"] == "https://vault.example/"
    assert again.status_code == 200 and again.json() == {
        "host": "vault.example",
        "status": "queued",
    }
    assert "location" not in again.headers
    assert first.json()["id"] not in again.text and "s3cr3t" not in again.text
    assert mine["url"] == "https://vault.example/" and "s3cr3t" not in str(mine)
    with reading(store.engine) as session:
        stored = session.scalar(select(Submission.url).where(Submission.host == "vault.example"))
    assert stored == "https://vault.example/"


def test_the_limit_per_client_answers_429_with_retry_after(store: Store) -> None:
    with store.client(submit_per_client=2, submit_client_key="per-client") as client:
        for name in ("one", "two"):
            assert client.post("/submissions", json={"url": f"{name}.example"}).status_code == 202
        # a duplicate is not a new submission: it is answered, not limited
        assert client.post("/submissions", json={"url": "one.example"}).status_code == 200
        limited = client.post("/submissions", json={"url": "three.example"})
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate-limited"
    assert 3500 <= int(limited.headers["retry-after"]) <= 3600
    assert set(limited.json()["error"]) == {"code", "message", "field"}
    with reading(store.engine) as session:  # the address itself is not stored
        clients = set(session.scalars(select(Submission.client)))
    assert "testclient" not in clients and all(c is None or len(c) == 64 for c in clients)


def test_the_limit_per_registrable_domain_answers_429(store: Store) -> None:
    with store.client(submit_per_domain=1, submit_window=120) as client:
        first = client.post("/submissions", json={"url": "https://a.shop.example.co.uk/"})
        other = client.post("/submissions", json={"url": "https://b.shop.example.co.uk/"})
    assert first.status_code == 202 and other.status_code == 429, other.text
    assert "example.co.uk" in other.json()["error"]["message"]
    assert 1 <= int(other.headers["retry-after"]) <= 120


@pytest.mark.parametrize(
    "body,status",
    [
        (b"not json", 422),
        (b'{"url": 3}', 422),
        (b'{"url": "a.example", "x": 1}', 422),
        (b'["a.example"]', 422),
        (b'{"url": "' + b"a" * 3000 + b'"}', 422),
        (b'{"url": "' + b"a" * 40000 + b'"}', 413),
    ],
)
def test_bad_bodies_are_structured_errors(store: Store, body: bytes, status: int) -> None:
    with store.client() as client:
        response = client.post(
            "/submissions", content=body, headers={"Content-Type": "application/json"}
        )
    assert response.status_code == status and response.json()["error"]["code"]


def test_unknown_and_malformed_ids(store: Store) -> None:
    with store.client() as client:
        assert client.get("/submissions/" + "A" * 24).status_code == 404
        assert client.get("/submissions/short").status_code == 422


def test_without_the_address_guard_submissions_are_off(store: Store) -> None:
    with store.client(check=False) as client:
        response = client.post("/submissions", json={"url": "shop.example"})
    assert response.status_code == 503 and response.json()["error"]["code"] == "submissions-off"


def test_cors_does_not_cover_submissions(store: Store) -> None:
    headers = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}
    with store.client() as client:
        assert (
            "access-control-allow-origin"
            not in client.options("/submissions", headers=headers).headers
        )
        assert (
            "access-control-allow-origin"
            not in client.post(
                "/submissions", json={"url": "cors.example"}, headers=headers
            ).headers
        )
        assert "access-control-allow-origin" in client.get("/healthz", headers=headers).headers


def test_a_flood_for_one_domain_from_ten_addresses_is_capped(store: Store) -> None:
    """docs/RELIABILITY.md 33, scaled down: 300 submissions for one registrable domain from 10
    client addresses create no more rows than the per-domain cap (the per-client one, 200, is
    not what binds here), and every refusal is a 429 with Retry-After."""
    settings = store.settings(submit_per_domain=5, submit_per_client=200, submit_client_key="flood")
    app = create_app(settings, engine=store.engine, target_check=target_check(settings))
    before = store.count()
    statuses: dict[int, int] = {}
    with ExitStack() as stack:
        clients = [
            stack.enter_context(
                TestClient(app, raise_server_exceptions=False, client=(f"198.51.100.{n}", 4000))
            )
            for n in range(10)
        ]
        for i in range(300):
            response = clients[i % 10].post("/submissions", json={"url": f"h{i}.flood.example.org"})
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code == 429:
                assert int(response.headers["retry-after"]) >= 1
    assert store.count() - before == 5 and statuses == {202: 5, 429: 295}
