"""Rate limiting (docs/RELIABILITY.md 32): one client looping on /find gets 429 with Retry-After
past its quota, while 50 other clients, on other loopback addresses, all get their answers.
Latency under abuse is a benchmark matter, not asserted here."""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.ratelimit import MAX_CLIENTS, RateLimit
from harness.db import engine_for
from harness.procs import start
from registry.config import Settings
from registry.db.engine import migrate
from registry.index import ActionIndex

pytestmark = pytest.mark.timeout(180)


def test_bucket_allows_a_burst_then_the_rate() -> None:
    limit = RateLimit(app=None, rate=2.0, burst=3)
    assert [limit.take("a", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.take("a", 0.0) == pytest.approx(0.5)  # next token in half a second
    assert limit.take("b", 0.0) == 0.0  # another client has its own bucket
    assert limit.take("a", 0.5) == 0.0
    assert limit.take("a", 10.0) == 0.0  # refilled, but never past the burst:
    assert [limit.take("a", 10.0) for _ in range(3)][-1] > 0


def test_buckets_stay_bounded_under_a_flood_of_addresses() -> None:
    limit = RateLimit(app=None, rate=1.0, burst=1)
    for i in range(MAX_CLIENTS + 10):
        limit.take(f"10.0.{i // 256}.{i % 256}", float(i) / 1e6)
    assert len(limit.buckets) <= MAX_CLIENTS


def _get(port: int, source: str, path: str) -> tuple[int, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
        if response.status == 429:
            assert json.loads(body)["error"]["code"] == "rate-limited"
        return response.status, headers
    finally:
        conn.close()


def test_an_abusive_client_is_limited_and_the_others_are_not(tmp_path: Path) -> None:
    server = start(tmp_path, ACTIONDEX_RATE_LIMIT="20", ACTIONDEX_RATE_BURST="40")
    port = server.port
    try:
        abuse: list[tuple[int, dict[str, str]]] = []
        normal: list[int] = []

        def abuser() -> None:  # 1,000 requests, as fast as one connection at a time goes
            stop = time.monotonic() + 10
            for _ in range(1000):
                if time.monotonic() > stop:
                    break
                abuse.append(_get(port, "127.0.0.2", "/find?q=book+a+table"))

        def client(n: int) -> None:  # one request every half second, 6 times
            for _ in range(6):
                normal.append(_get(port, f"127.0.1.{n}", "/find?q=buy+paper")[0])
                time.sleep(0.5)

        threads = [threading.Thread(target=abuser)] + [
            threading.Thread(target=client, args=(n,)) for n in range(1, 51)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        server.stop()

    statuses = [status for status, _ in abuse]
    assert statuses[:40] == [200] * 40  # the burst
    limited = [headers for status, headers in abuse if status == 429]
    assert limited and all(int(h["retry-after"]) >= 1 for h in limited)
    # At most the burst plus the rate over the time it ran (generously: 12 s).
    assert statuses.count(200) <= 40 + 20 * 12
    assert normal == [200] * 300


def test_health_readiness_and_metrics_are_never_limited(tmp_path: Path) -> None:
    """An orchestrator probing a busy replica must not read a 429 as "take it out"."""
    engine = engine_for(f"sqlite:///{tmp_path / 'store.db'}", tmp_path)
    migrate(engine)
    index = ActionIndex.open(tmp_path / "index")
    # One token a hundred seconds: the second /stats is refused however slow the first was (at
    # one a second, a loaded machine once took a second over the first and let the next in).
    settings = Settings(data_dir=tmp_path, rate_limit=0.01, rate_burst=1)
    with TestClient(create_app(settings, index=index, engine=engine)) as client:
        assert [client.get("/stats").status_code for _ in range(2)] == [200, 429]
        for path in ("/healthz", "/readyz", "/metrics") * 5:
            assert client.get(path).status_code == 200, path
            assert client.head(path).status_code == 200, path
    engine.dispose()
