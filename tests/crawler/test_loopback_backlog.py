"""The loopback webs the crawler is tested and measured against keep a burst of connections
waiting in their accept queue. With socketserver's default backlog of 5 the kernel dropped the
SYNs past it, and each dropped client waited out a 1 s, 3 s, 7 s... retransmission: a crawl of
many loopback sites measured those waits (the 10,000-site bench overflowed ~40 times a second)
and a test's 8 s request timeout could fire on a site that answers at once."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from actiondex.demo.web import DemoWeb
from harness.web import LoopbackServer, LoopbackWeb

BURST = 64  # connections opened at once, none accepted yet


def _connects(address: tuple[str, int]) -> int:
    """How many of BURST connections, opened at once, complete their handshake within 0.5 s
    while the server accepts none of them (a dropped SYN is retried after 1 s at the earliest)."""
    with ExitStack() as stack:
        pending = []
        for _ in range(BURST):
            sock = stack.enter_context(socket.socket())
            sock.setblocking(False)
            sock.connect_ex(address)
            pending.append(sock)
        done, deadline = 0, time.monotonic() + 0.5
        while pending and (left := deadline - time.monotonic()) > 0:
            _, ready, _ = select.select([], pending, [], left)
            for sock in ready:
                pending.remove(sock)
                done += sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    return done


def _servers() -> dict[str, Callable[[], Any]]:
    return {
        "harness": lambda: LoopbackWeb({})._server,  # the crawler tests' and benches' web
        "demo": lambda: DemoWeb()._server,  # `actiondex demo`'s sites
        "realsite": lambda: LoopbackServer(("127.0.0.1", 0), BaseHTTPRequestHandler),
    }


@pytest.mark.parametrize("kind", sorted(_servers()))
def test_a_burst_of_connections_waits_in_the_accept_queue(kind: str) -> None:
    server = _servers()[kind]()  # bound and listening; nothing accepts until serve_forever
    try:
        assert _connects(server.server_address[:2]) == BURST
    finally:
        server.server_close()
