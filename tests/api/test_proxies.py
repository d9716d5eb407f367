"""Proxy headers are believed only from ACTIONDEX_TRUSTED_PROXIES (issue 25 item 4), against a
real `actiondex serve`: uvicorn's own default believes X-Forwarded-For from loopback, so a
client on the same machine (or any client, through a proxy that passes the header on) could
be anyone it liked to the rate limit and to the submission limits."""

from __future__ import annotations

import http.client
import json
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from harness.procs import serving
from registry.config import Settings

pytestmark = pytest.mark.timeout(180)
_spoofed = count(1)


def _send(
    base: str, method: str, path: str, forwarded: str | None, body: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    try:
        conn.request(
            method, path, body=json.dumps(body) if body is not None else None, headers=headers
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


def _spoof() -> str:
    n = next(_spoofed)
    return f"203.0.113.{n % 250 + 1}"


def _rate_limited_after(base: str, forwarded: list[str | None]) -> list[int]:
    return [_send(base, "GET", "/find?q=pens", f)[0] for f in forwarded]


LIMITS = {
    "ACTIONDEX_RATE_LIMIT": "0.01",
    "ACTIONDEX_RATE_BURST": "2",
    "ACTIONDEX_SUBMIT_PER_CLIENT": "1",
    "ACTIONDEX_SUBMIT_PER_DOMAIN": "0",
}


def test_spoofed_forwarded_for_from_loopback_is_not_the_rate_limits_client(tmp_path: Path) -> None:
    with serving(tmp_path, **LIMITS) as base:
        # Three requests "from" three addresses: all are loopback's, whose burst is 2.
        assert _rate_limited_after(base, [_spoof(), _spoof(), _spoof()]) == [200, 200, 429]
        status, body = _send(base, "GET", "/find?q=pens", _spoof())
        assert status == 429 and "from 127.0.0.1" in body["error"]["message"]


def test_spoofed_forwarded_for_from_loopback_is_not_the_submissions_client(tmp_path: Path) -> None:
    with serving(tmp_path, ACTIONDEX_RATE_LIMIT="0", ACTIONDEX_SUBMIT_PER_CLIENT="1") as base:
        first = _send(base, "POST", "/submissions", _spoof(), {"url": "one.example.org"})
        second = _send(base, "POST", "/submissions", _spoof(), {"url": "two.example.org"})
    assert first[0] == 202, first
    assert second[0] == 429 and second[1]["error"]["code"] == "rate-limited", second


def test_a_trusted_proxy_names_the_client(tmp_path: Path) -> None:
    with serving(tmp_path, ACTIONDEX_TRUSTED_PROXIES="127.0.0.0/8, ::1", **LIMITS) as base:
        # Each forwarded client has its own bucket...
        assert _rate_limited_after(base, [_spoof(), _spoof(), _spoof()]) == [200, 200, 200]
        # ...and one forwarded client is limited by its own address, not the proxy's.
        client = "198.51.100.9"
        assert _rate_limited_after(base, [client, client, client]) == [200, 200, 429]
        status, body = _send(base, "GET", "/find?q=pens", f"{client}, 127.0.0.1")
        assert status == 429 and f"from {client}" in body["error"]["message"]
    with serving(
        tmp_path,
        ACTIONDEX_RATE_LIMIT="0",
        ACTIONDEX_SUBMIT_PER_CLIENT="1",
        ACTIONDEX_TRUSTED_PROXIES="127.0.0.1",
    ) as base:
        first = _send(base, "POST", "/submissions", _spoof(), {"url": "three.example.org"})
        second = _send(base, "POST", "/submissions", _spoof(), {"url": "four.example.org"})
        again = _send(base, "POST", "/submissions", "198.51.100.10", {"url": "five.example.org"})
        twice = _send(base, "POST", "/submissions", "198.51.100.10", {"url": "six.example.org"})
    assert [first[0], second[0], again[0], twice[0]] == [202, 202, 202, 429]


@pytest.mark.parametrize(
    "entries,ok",
    [("10.0.0.5, 10.1.0.0/16 ::1", True), ("", True), ("proxy.internal", False), ("*", False)],
)
def test_trusted_proxies_are_addresses_or_networks(entries: str, ok: bool) -> None:
    try:
        settings = Settings(trusted_proxies=entries)
    except ValueError as exc:
        assert not ok and "is not an IP address or network" in str(exc)
        return
    assert ok and len(settings.trusted_proxies) == len(entries.replace(",", " ").split())
