"""The demo web: every folder under demo/sites/ is a fictional site, served on one loopback port
and chosen by the Host header. Crawl it with ``--resolve HOST:PORT:127.0.0.1`` (``resolve_args``).
"""

from __future__ import annotations

import json
import mimetypes
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

SITES = Path(__file__).resolve().parent / "sites"
REDIRECTS = "_redirects.json"


class DemoWeb:
    """A background ThreadingHTTPServer; a context manager that starts and stops it.

    ``overrides`` maps host -> {path: Location} on top of each site's ``_redirects.json``;
    ``delays`` maps host -> seconds to wait before answering (a slow site). ``requests``
    records every (host, path) asked for, in order.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        root: Path = SITES,
        overrides: dict[str, dict[str, str]] | None = None,
        delays: dict[str, float] | None = None,
    ) -> None:
        self.root = root.resolve()
        self.hosts = sorted(p.name for p in self.root.iterdir() if p.is_dir())
        self.overrides = overrides or {}
        self.delays = delays or {}
        self._log: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._server = _Server((host, port), _handler_for(self))
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> DemoWeb:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="demo-web", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> DemoWeb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def resolve_args(self) -> list[str]:
        return [f"{site}:{self.port}:{self.host}" for site in self.hosts]

    def requests(self, host: str | None = None) -> list[tuple[str, str]]:
        """A copy of the request log, optionally for one host."""
        with self._lock:
            return [entry for entry in self._log if host is None or entry[0] == host]

    def record(self, host: str, path: str) -> None:
        with self._lock:
            self._log.append((host, path))

    def redirect_for(self, host: str, path: str) -> str | None:
        if path in self.overrides.get(host, {}):
            return self.overrides[host][path]
        try:
            table: Any = json.loads((self.root / host / REDIRECTS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        location = table.get(path) if isinstance(table, dict) else None
        return location if isinstance(location, str) else None

    def file_for(self, host: str, path: str) -> Path | None:
        """The file serving ``path`` on ``host``, never outside that site's folder."""
        site = (self.root / host).resolve()
        if not host or site.parent != self.root or not site.is_dir():
            return None
        relative = path.lstrip("/")
        if not relative or relative.endswith("/"):
            relative += "index.html"
        target = (site / relative).resolve()
        if not target.is_relative_to(site) or target.name == REDIRECTS or not target.is_file():
            return None
        return target


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() must not wait for a deliberately slow reply
    # A crawl opens many connections at once: past socketserver's backlog of 5 the kernel drops
    # their SYNs and each client waits out a 1 s retransmission.
    request_queue_size = 1024

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up mid-reply (a killed crawl) is not an error of the demo web.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def content_type(path: Path) -> str:
    if path.name == "robots.txt" or path.suffix == ".txt":
        return "text/plain; charset=utf-8"
    if path.suffix == ".json" or (path.suffix == "" and path.parent.name == ".well-known"):
        return "application/json"
    if path.suffix in (".html", ".htm"):
        return "text/html; charset=utf-8"
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _host_name(header: str) -> str:
    """The Host header without its port: ``a.test:8123`` -> ``a.test``, ``[::1]:80`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")]
    return header.split(":")[0]


def _handler_for(web: DemoWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "actiondex-demo"

        def do_GET(self) -> None:
            self._answer(with_body=True)

        def do_HEAD(self) -> None:
            self._answer(with_body=False)

        def _answer(self, with_body: bool) -> None:
            host = _host_name(self.headers.get("Host") or "")
            path = unquote(urlsplit(self.path).path) or "/"
            web.record(host, path)
            time.sleep(web.delays.get(host, 0.0))
            location = web.redirect_for(host, path)
            if location is not None:
                return self._send(302, b"", "text/plain", with_body, Location=location)
            target = web.file_for(host, path)
            if target is None:
                return self._send(404, b"not found\n", "text/plain", with_body)
            self._send(200, target.read_bytes(), content_type(target), with_body)

        def _send(
            self, status: int, body: bytes, ctype: str, with_body: bool, **headers: str
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests and the demo read the request log instead

    return Handler
