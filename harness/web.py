"""A loopback web of scripted sites, chosen by Host header: benign, slow, endless, compressed,
resetting, redirecting, catch-all. Every reply is a ``Reply``; the request log records each
(host, path, headers) so tests and benches can count what the crawler asked for.
"""

from __future__ import annotations

import hashlib
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes | Callable[[], Iterable[bytes]] = b""  # a callable streams, no Content-Length
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line
    reset: bool = False  # close the connection with RST instead of answering
    etag: bool = True  # answer If-None-Match with 304


def json_reply(body: bytes | str, **headers: str) -> Reply:
    data = body.encode() if isinstance(body, str) else body
    return Reply(body=data, headers={"Content-Type": "application/json", **headers})


def html_reply(body: str, **headers: str) -> Reply:
    return Reply(
        body=body.encode(), headers={"Content-Type": "text/html; charset=utf-8", **headers}
    )


@dataclass
class Site:
    # A list is served in order, one reply per request, the last one repeating.
    paths: dict[str, Reply | list[Reply]] = field(default_factory=dict)
    fallback: Reply | None = None  # the answer to every other path (a catch-all site)


class LoopbackWeb:
    def __init__(
        self, sites: dict[str, Site], host: str = "127.0.0.1", tls: ssl.SSLContext | None = None
    ) -> None:
        self.sites = sites
        self.log: list[tuple[str, str, dict[str, str]]] = []
        self._lock = threading.Lock()
        self._server = LoopbackServer((host, 0), _handler(self))
        self.scheme = "https" if tls else "http"
        if tls:  # the handshake happens in the request's thread, on its first read
            self._server.socket = tls.wrap_socket(
                self._server.socket, server_side=True, do_handshake_on_connect=False
            )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, host: str, path: str = "/") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def resolve_args(self) -> list[str]:
        return [f"{host}:{self.port}:127.0.0.1" for host in self.sites]

    def requests(self, host: str | None = None) -> list[str]:
        with self._lock:
            return [path for h, path, _ in self.log if host is None or h == host]

    def record(self, host: str, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.log.append((host, path, headers))

    def __enter__(self) -> LoopbackWeb:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)
        self._server.server_close()


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True
    # A crawl opens many connections at once. socketserver's backlog of 5 made the kernel drop
    # the SYNs past it, and each dropped client waited out a 1 s (then 3 s, 7 s) retransmission.
    request_queue_size = 1024
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a crawler hanging up on an endless body is the point of the test


def _handler(web: LoopbackWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            host = (self.headers.get("Host") or "").split(":")[0].lower()
            path = urlsplit(self.path).path or "/"
            web.record(host, path, {**self.headers, "_at": str(time.monotonic())})
            site = web.sites.get(host)
            reply = (site.paths.get(path) or site.fallback) if site else None
            if isinstance(reply, list):
                reply = reply.pop(0) if len(reply) > 1 else reply[0]
            self._answer(reply or Reply(404, b"not found\n", {"Content-Type": "text/plain"}))

        def _answer(self, reply: Reply) -> None:
            time.sleep(reply.delay)
            if reply.reset:
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.close_connection = True
                return
            body = reply.body
            tag = f'"{hashlib.sha256(body).hexdigest()[:16]}"' if isinstance(body, bytes) else ""
            if (
                tag
                and reply.etag
                and reply.status == 200
                and (self.headers.get("If-None-Match") == tag)
            ):
                self.send_response(304)
                self.send_header("ETag", tag)
                self.end_headers()
                return
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if isinstance(body, bytes):
                self.send_header("Content-Length", str(len(body)))
                if tag and reply.etag:
                    self.send_header("ETag", tag)
            self.end_headers()
            self._write(body)

        def _write(self, body: bytes | Callable[[], Iterable[bytes]]) -> None:
            if isinstance(body, bytes):
                self.wfile.write(body)
                return
            self.close_connection = True  # HTTP/1.0: the body ends when the connection does
            for chunk in body():
                self.wfile.write(chunk)
                self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
