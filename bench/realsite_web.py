"""The plugin store's real sites on a loopback web, under their real host names (bench.realsites).

Read in place from ../shared/corpus/openai-plugin-store (its licence allows no copy here):
``resultsArray.json``, every store record of 2023-08 (``.domain``, ``.manifest`` = the
ai-plugin.json), and ``results/``, 43 records with the OpenAPI their ``api.url`` named, some of
them real failures (challenge HTML, error JSON, an empty body). Each site serves
``/.well-known/ai-plugin.json`` (the record's manifest, unchanged), a robots.txt that allows all,
and, where results/ has it, its OpenAPI at ``api.url``; every other path is 404, as a site that
has no such file answers. A domain listed twice serves its first record.

The web answers HTTPS on port 443 of one random 127/8 address, so the manifests' own https URLs
(``api.url`` often names another host) are fetched as published: a throwaway CA signs each host's
certificate (the crawl trusts it through SSL_CERT_FILE), and ``--resolve HOST:443:ADDR`` sends
each name there, never to real DNS. Binding port 443 needs root (this machine's users are).
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from harness.certs import issue, make_ca, server_context
from harness.web import LoopbackServer

STORE = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "openai-plugin-store"
ROBOTS = b"User-agent: *\nAllow: /\n"
PLUGIN_PATH = "/.well-known/ai-plugin.json"


@dataclass
class Plugin:
    """One store record: the site it was listed under and its manifest (plus OpenAPI)."""

    host: str
    manifest: dict[str, Any]
    spec: bytes | None = None  # the body results/ saved for api.url, when it has one

    @property
    def api_url(self) -> str:
        api = self.manifest.get("api") or {}
        url = api.get("url") if isinstance(api, dict) else None
        return urljoin(f"https://{self.host}/", url) if isinstance(url, str) else ""


def load_plugins(store: Path = STORE) -> list[Plugin]:
    """Every record, one per domain, in the store's order; results/ adds its OpenAPI bodies
    (and the one record resultsArray.json lacks). FileNotFoundError when ``store`` is absent."""
    records = json.loads((store / "resultsArray.json").read_text(encoding="utf-8"))
    specs: dict[str, bytes] = {}
    for path in sorted((store / "results").glob("*.json")):
        if path.name.endswith(".api.json"):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        body = next(
            (
                p.read_bytes()
                for p in (path.with_suffix(".api.json"), path.with_suffix(".api.yaml"))
                if p.is_file()
            ),
            None,
        )
        if body is not None:
            specs[record["id"]] = body
        if all(r["id"] != record["id"] for r in records):
            records.append(record)
    plugins: dict[str, Plugin] = {}
    for record in records:
        host = record["domain"].lower()
        if host not in plugins and isinstance(record.get("manifest"), dict):
            plugins[host] = Plugin(host, record["manifest"], specs.get(record["id"]))
    return list(plugins.values())


@dataclass
class Page:
    body: bytes
    content_type: str


@dataclass
class RealWeb:
    """The loopback web for ``plugins``; a context manager that serves while open."""

    plugins: list[Plugin]
    folder: Path  # where the certificates go
    address: str = field(
        default_factory=lambda: "127." + ".".join(str(random.randint(1, 254)) for _ in range(3))
    )  # two runs at once: two addresses
    pages: dict[tuple[str, str], Page] = field(default_factory=dict)
    log: list[tuple[str, str, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for plugin in self.plugins:
            self.pages[(plugin.host, "/robots.txt")] = Page(ROBOTS, "text/plain")
            self.pages[(plugin.host, PLUGIN_PATH)] = Page(
                json.dumps(plugin.manifest).encode(), "application/json"
            )
            api = urlsplit(plugin.api_url)
            if api.hostname and plugin.spec is not None:
                self.pages.setdefault(
                    (api.hostname.lower(), api.path or "/"),
                    Page(plugin.spec, _content_type(plugin.spec, api.path)),
                )

    @property
    def hosts(self) -> list[str]:
        """Every name the web answers for: the sites and the hosts their api.url names."""
        names = {p.host for p in self.plugins}
        names |= {urlsplit(p.api_url).hostname or "" for p in self.plugins}
        return sorted(n.lower() for n in names if n)

    def resolve_args(self) -> list[str]:
        return [f"{host}:443:{self.address}" for host in self.hosts]

    @property
    def ca_file(self) -> Path:
        return self.folder / "ca.crt"

    def __enter__(self) -> RealWeb:
        self.folder.mkdir(parents=True, exist_ok=True)
        _, ca_cert, ca_key = make_ca(self.folder)
        tls = server_context({h: issue(self.folder, h, ca_cert, ca_key) for h in self.hosts})
        self._server = LoopbackServer((self.address, 443), _handler(self))
        self._server.socket = tls.wrap_socket(
            self._server.socket, server_side=True, do_handshake_on_connect=False
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)
        self._server.server_close()


def _content_type(body: bytes, path: str) -> str:
    """What the saved body most likely came with: the failures include HTML and plain text."""
    start = body.lstrip()[:1]
    if start == b"<":
        return "text/html; charset=utf-8"
    if start in (b"{", b"["):
        return "application/json"
    return "application/yaml" if path.endswith((".yaml", ".yml")) else "text/plain"


def _handler(web: RealWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: one TLS handshake per crawl connection

        def do_GET(self) -> None:
            host = (self.headers.get("Host") or "").split(":")[0].lower()
            page = web.pages.get((host, urlsplit(self.path).path or "/"))
            status = 200 if page else 404
            page = page or Page(b"not found\n", "text/plain")
            web.log.append((host, self.path, status))
            self.send_response(status)
            self.send_header("Content-Type", page.content_type)
            self.send_header("Content-Length", str(len(page.body)))
            self.end_headers()
            self.wfile.write(page.body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
