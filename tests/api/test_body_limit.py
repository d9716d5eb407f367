"""Every POST route has a body bound, chunked bodies included (issue 25 item 7): against a real
`actiondex serve`, a chunked body far past the bound is answered 413 in the route's error
shape before the client has sent it all, and the server's memory does not grow with it
(before, /ard/search and /ard/explore read a 200 MB body whole: RSS 227 -> 812 MB)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.procs import serving
from tests.helpers.live import ingest_shops

pytestmark = pytest.mark.timeout(300)
CHUNK = b"x" * 65536
TOTAL = 48 << 20  # bytes the client would send: 48 MiB, far past every bound (at most 3 MiB)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("bodies")
    ingest_shops(data_dir)
    with serving(data_dir) as url:
        yield url


def _action(base: str) -> str:
    with urllib.request.urlopen(f"{base}/find?q=order+pens", timeout=10) as answer:
        results = json.loads(answer.read())["results"]
    return str(next(r["id"] for r in results if r["kind"] == "action"))


def _chunked(base: str, path: str, media: str, extra: str = "") -> tuple[int, dict, int]:
    """POST an endless chunked body to ``path``: (status, JSON body, bytes sent before the
    answer came)."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(
        (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {media}\r\n"
            f"Transfer-Encoding: chunked\r\n{extra}\r\n"
        ).encode()
    )
    sent, stop = 0, threading.Event()

    def pump() -> None:
        nonlocal sent
        try:
            while sent < TOTAL and not stop.is_set():
                sock.sendall(b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK))
                sent += len(CHUNK)
            sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed: the point
            pass

    sender = threading.Thread(target=pump, daemon=True)
    sender.start()
    try:
        reply = sock.makefile("rb")
        status = int(reply.readline().split()[1])
        at = sent
        headers = {}
        while line := reply.readline().strip():
            name, _, value = line.decode().partition(":")
            headers[name.lower()] = value.strip()
        body = reply.read(int(headers["content-length"]))
        if headers["content-type"].startswith("text/html"):  # a web page's own 413 page
            return status, {"error": {"code": "too-large", "message": "larger than"}}, at
        return status, json.loads(body), at
    finally:
        stop.set()
        sock.close()
        sender.join(timeout=10)


def _rss_kib(base: str) -> int:
    """The resident memory of the `actiondex serve` listening at ``base`` (found in /proc)."""
    port = base.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
            if b"serve" in command and port.encode() in command:
                status = (proc / "status").read_text()
        except OSError:
            continue
        else:
            if b"serve" in command and port.encode() in command:
                return int(status.split("VmRSS:")[1].split()[0])
    raise AssertionError(f"no server process on port {port}")


MCP = "Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-06-18\r\n"


@pytest.mark.parametrize(
    "path,media,extra,ard",
    [
        ("/ard/search", "application/json", "", True),
        ("/ard/explore", "application/json", "", True),
        ("/mcp", "application/json", MCP, False),
        ("/validate", "application/json", "", False),
        ("/submissions", "application/json", "", False),
        ("/actions/{id}/prepare", "application/json", "", False),
        ("/validator", "application/x-www-form-urlencoded", "", False),
        ("/view/actions/{id}/prepare", "application/x-www-form-urlencoded", "", False),
    ],
)
def test_a_chunked_body_past_the_bound_is_413(
    base: str, path: str, media: str, extra: str, ard: bool
) -> None:
    path = path.replace("{id}", _action(base))
    before = _rss_kib(base)
    status, body, sent = _chunked(base, path, media, extra)
    assert status == 413, body
    if ard:
        assert body["errorCode"] and "larger than" in body["message"]
    else:
        assert body["error"]["code"] == "too-large" and "larger than" in body["error"]["message"]
    assert sent < TOTAL // 2  # answered long before the client was done
    assert _rss_kib(base) - before < 64 * 1024  # no body held in memory


def test_a_declared_length_past_the_bound_is_refused_unread(base: str) -> None:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            (
                f"POST /ard/search HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {TOTAL}\r\n\r\n"
            ).encode()
        )
        started = time.monotonic()
        head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 413") and time.monotonic() - started < 10


def test_a_body_within_the_bound_still_works(base: str) -> None:
    request = urllib.request.Request(
        f"{base}/ard/search",
        data=json.dumps({"query": {"text": "pens"}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200 and "results" in json.loads(answer.read())
