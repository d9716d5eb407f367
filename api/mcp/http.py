"""``/mcp``: the tools over Streamable HTTP, inside the FastAPI app.

The SDK's session manager answers every request; it runs in the app's lifespan (``running``).
Its DNS-rebinding guard checks Host and Origin against Settings.mcp_allowed_hosts and
mcp_allowed_origins: a browser page on another origin, or a name rebound to this address,
gets the SDK's refusal (421 for the Host, 403 for the Origin).
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from registry.config import Settings

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("", "0.0.0.0", "::")  # a listener on every address: its names are unknown here


def listen_hosts(host: str) -> list[str]:
    """The Host headers a server listening on ``host`` answers by default: loopback and
    ``host`` itself, each with any port or none."""
    named = [] if host in WILDCARDS else [f"[{host}]" if ":" in host else host]
    names = dict.fromkeys([*LOOPBACK, *named])
    return [pattern for name in names for pattern in (name, f"{name}:*")]


def for_listener(settings: Settings, host: str) -> Settings:
    """``settings`` for a server listening on ``host``: unless ACTIONDEX_MCP_ALLOWED_HOSTS
    says otherwise, /mcp answers loopback and ``host``."""
    if settings.mcp_allowed_hosts:
        return settings
    return settings.model_copy(update={"mcp_allowed_hosts": listen_hosts(host)})


def transport_security(settings: Settings) -> TransportSecuritySettings:
    from mcp.server.transport_security import TransportSecuritySettings  # the SDK: see below

    hosts = settings.mcp_allowed_hosts or listen_hosts(LOOPBACK[0])
    if hosts == ["*"]:  # a proxy in front checks them
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = settings.mcp_allowed_origins or [
        f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")
    ]
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)


class Endpoint:
    """The ASGI app at ``/mcp``. The SDK, the tools and their session manager are made on the
    first request (the import runs in a thread, off the event loop), inside the task group
    the app's lifespan opens (``running``); each lifespan gets a new manager, as a manager
    runs only once."""

    def __init__(self, backing: Callable[[], Any], settings: Settings) -> None:
        self.backing = backing
        self.settings = settings
        self._group: anyio.abc.TaskGroup | None = None
        self._manager: StreamableHTTPSessionManager | None = None
        self._lock = anyio.Lock()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            self._group, self._manager = group, None
            try:
                yield
            finally:
                self._group, self._manager = None, None
                group.cancel_scope.cancel()  # ends the manager's run and its sessions

    async def _started(self, group: anyio.abc.TaskGroup) -> StreamableHTTPSessionManager:
        async with self._lock:
            if self._manager is None:
                module = await anyio.to_thread.run_sync(importlib.import_module, "api.mcp.server")
                server = module.build_server(self.backing)
                # Its Starlette app is unused: the route is the FastAPI app's own, so /mcp
                # stays out of /openapi.json; the call makes the session manager.
                server.streamable_http_app(
                    streamable_http_path=PATH, transport_security=transport_security(self.settings)
                )
                manager = server.session_manager
                ready = anyio.Event()

                async def run() -> None:
                    async with manager.run():
                        ready.set()
                        await anyio.sleep_forever()

                group.start_soon(run)
                await ready.wait()
                self._manager = manager
            return self._manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        group = self._group
        if group is None:
            raise RuntimeError("/mcp is served only while the app's lifespan runs")
        manager = await self._started(group)
        await manager.handle_request(scope, receive, send)


class McpRoute(Route):
    """``/mcp`` for every method (the SDK answers each). It leaves itself in the scope, as
    FastAPI's routes do, so metrics and the access log name it."""

    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__(PATH, endpoint)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        return match, (child | {"route": self} if match is not Match.NONE else child)
