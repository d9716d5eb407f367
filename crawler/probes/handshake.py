"""The MCP handshake, read-only by construction: ``server/discover`` (2026-07-28), else
``initialize`` (older servers), then ``tools/list``. Nothing else is ever sent: no tool is
called, no resource read.

Plain JSON-RPC over the guarded client (crawler/probes/transport.py) rather than the SDK's
``ClientSession``: a probe must see the HTTP status (401/403 and their ``WWW-Authenticate``),
bound every answer's size and time, and count its requests; the SDK's client hides the first,
reads unbounded streams and opens a session stream of its own. The messages are the SDK's
(``mcp_types``: the version constants and the per-request ``_meta`` keys 2026-07-28 asks for).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
)
from mcp_types.version import LATEST_MODERN_VERSION

from crawler.probes.transport import events, read

LEGACY_VERSION = "2025-06-18"  # what ``initialize`` offers an older server
MAX_TOOL_PAGES = 4  # tools/list pages read at most (MAX_TOOLS in the format module caps tools)
CLIENT = {"name": "actiondex-probe", "version": "0.1.0"}


class NotProtocol(Exception):
    """HTTP answered, MCP did not."""

    def __init__(self, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.status = status


class AuthRequired(Exception):
    def __init__(self, response: httpx2.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


@dataclass
class Session:
    client: httpx2.Client
    url: str
    max_bytes: int
    deadline: float
    requests: int = 0
    last_status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def call(self, method: str, params: dict[str, Any], ident: int | None) -> dict[str, Any]:
        """One JSON-RPC message; the response's ``result`` (or, for a notification, {})."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if ident is not None:
            body["id"] = ident
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Mcp-Method": method,
            **self.headers,
        }
        self.requests += 1
        timeout = max(0.1, self.deadline - time.monotonic())
        with self.client.stream(
            "POST", self.url, json=body, headers=headers, timeout=timeout
        ) as response:
            self.last_status = response.status_code
            if response.status_code in (401, 403):
                raise AuthRequired(response)
            if "mcp-session-id" in response.headers:
                self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"][:200]
            if ident is None:
                return {}
            return self._result(response, ident)

    def _result(self, response: httpx2.Response, ident: int) -> dict[str, Any]:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            for data in events(response, self.max_bytes, self.deadline):
                message = _json(data)
                if message.get("id") == ident:
                    return _unwrap(message, response.status_code)
            raise NotProtocol("the event stream ended without an answer", response.status_code)
        message = _json(read(response, self.max_bytes, self.deadline))
        return _unwrap(message, response.status_code)


def _json(text: str | bytes) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise NotProtocol("the answer is not JSON") from None
    if not isinstance(value, dict):
        raise NotProtocol("the answer is not a JSON-RPC message")
    return value


def _unwrap(message: dict[str, Any], status: int) -> dict[str, Any]:
    if message.get("jsonrpc") != "2.0":
        raise NotProtocol("the answer is not a JSON-RPC message", status)
    if isinstance(message.get("result"), dict):
        return message["result"]  # type: ignore[no-any-return]
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    raise NotProtocol(f"JSON-RPC error {code}", status)


def _modern_meta() -> dict[str, Any]:
    return {
        PROTOCOL_VERSION_META_KEY: LATEST_MODERN_VERSION,
        CLIENT_CAPABILITIES_META_KEY: {},
        CLIENT_INFO_META_KEY: CLIENT,
    }


def handshake(session: Session) -> dict[str, Any]:
    """``server/discover``, falling back to ``initialize``: what the server said of itself
    (``era``, ``capabilities``); raises NotProtocol, AuthRequired or an HTTP error."""
    try:
        session.headers = {"MCP-Protocol-Version": LATEST_MODERN_VERSION}
        found = session.call("server/discover", {"_meta": _modern_meta()}, 1)
        if LATEST_MODERN_VERSION in (found.get("supportedVersions") or []):
            return {"era": LATEST_MODERN_VERSION, "capabilities": found.get("capabilities")}
    except NotProtocol:
        pass  # an older server (or none): the handshake of its era says which
    session.headers = {}
    params = {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": CLIENT}
    found = session.call("initialize", params, 2)
    version = found.get("protocolVersion")
    if not isinstance(version, str) or not isinstance(found.get("capabilities"), dict):
        raise NotProtocol("initialize answered without a protocol version", session.last_status)
    session.headers["MCP-Protocol-Version"] = version[:40]
    session.call("notifications/initialized", {}, None)
    return {"era": version[:40], "capabilities": found["capabilities"]}


def list_tools(session: Session, era: str) -> tuple[list[Any], float | None]:
    """Every tool (a few pages at most) and the server's ``ttlMs`` hint, if any."""
    tools: list[Any] = []
    cursor, ttl = None, None
    for page in range(MAX_TOOL_PAGES):
        params: dict[str, Any] = {"_meta": _modern_meta()} if era == LATEST_MODERN_VERSION else {}
        if cursor:
            params["cursor"] = cursor
        found = session.call("tools/list", params, 10 + page)
        if isinstance(found.get("ttlMs"), int | float) and not isinstance(found["ttlMs"], bool):
            ttl = float(found["ttlMs"])
        tools += [t for t in found.get("tools") or [] if isinstance(t, dict)]
        cursor = found.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            break
    return tools, ttl
