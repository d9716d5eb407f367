"""URL validations cannot be hogged (issue 25 item 9): before, four concurrent validations of
a site that drips its bytes held all four slots for 90 s and every other client got 503
`busy`. Now one client has at most two of the four slots, and a validation ends after
ACTIONDEX_VALIDATE_TIMEOUT seconds in all, however slowly the body still comes (504).
Against a real `actiondex serve`, clients on two loopback addresses and a real slow-drip
server on loopback."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from api.routes.validate import Slots, client_key
from harness.procs import serving
from harness.web import LoopbackWeb, Reply, Site

pytestmark = pytest.mark.timeout(240)
TIMEOUT = 15  # ACTIONDEX_VALIDATE_TIMEOUT: long enough for a child to start and reach the site
# on a loaded machine (at 4 s the child was sometimes killed before its first request)
SLACK = 10  # seconds on top for a child process to start and be killed on a busy machine


def drip() -> Iterator[bytes]:
    for _ in range(1200):  # ten minutes, a byte every half second
        time.sleep(0.5)
        yield b" "


DRIP = Reply(body=drip, headers={"Content-Type": "application/json"})


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb({"drip.test": Site(fallback=DRIP)}) as served:
        yield served


def _validate(base: str, source: str, url: str) -> tuple[int, dict[str, Any], float]:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
    started = time.monotonic()
    try:
        conn.request(
            "POST",
            "/validate",
            body=json.dumps({"url": url}),
            headers={"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read()), time.monotonic() - started
    finally:
        conn.close()


def test_a_slow_site_holds_two_slots_of_one_client_for_the_deadline_only(
    tmp_path: Path, web: LoopbackWeb
) -> None:
    target = web.url("drip.test")
    answers: dict[str, list[tuple[int, dict[str, Any], float]]] = {"a": [], "b": []}

    def ask(who: str, source: str) -> None:
        answers[who].append(_validate(base, source, target))

    with serving(
        tmp_path,
        ACTIONDEX_VALIDATE_TIMEOUT=str(TIMEOUT),
        ACTIONDEX_RESOLVE=",".join(web.resolve_args()),
    ) as base:
        hog = [threading.Thread(target=ask, args=("a", "127.0.0.2")) for _ in range(4)]
        for thread in hog:
            thread.start()
        time.sleep(1.0)  # the hog's requests are in
        other = threading.Thread(target=ask, args=("b", "127.0.0.3"))
        other.start()
        for thread in [*hog, other]:
            thread.join(timeout=90)
        assert len(web.requests("drip.test")) >= 3  # the validations did reach the site
    statuses = sorted(status for status, _, _ in answers["a"])
    assert statuses == [429, 429, 504, 504], answers["a"]
    for status, body, seconds in answers["a"]:
        assert body["error"]["code"] == ("busy" if status == 429 else "timeout")
        assert seconds < TIMEOUT + SLACK
    [(status, body, seconds)] = answers["b"]
    assert status == 504 and body["error"]["code"] == "timeout", body  # it got a slot
    assert f"longer than {TIMEOUT} s" in body["error"]["message"]
    assert seconds < TIMEOUT + SLACK


def test_slots_are_shared_per_client_and_an_ipv6_client_is_its_64() -> None:
    slots = Slots(total=4, per_client=2)
    assert [slots.take("a"), slots.take("a"), slots.take("a")] == [None, None, "client"]
    assert [slots.take("b"), slots.take("c"), slots.take("d")] == [None, None, "all"]
    slots.give("a")
    assert slots.take("d") is None and slots.take("a") == "all"

    def key(host: str) -> str:
        return client_key(SimpleNamespace(client=SimpleNamespace(host=host)))  # type: ignore[arg-type]

    assert key("2001:db8:1:2::5") == key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:3::5") != key("2001:db8:1:2::5")
    assert key("::ffff:198.51.100.7") == key("198.51.100.7") == "198.51.100.7"
    assert key("testclient") == "testclient"
