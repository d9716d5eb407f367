"""``/mcp``: the tools over Streamable HTTP, inside the FastAPI app.

The SDK's session manager answers every request; it runs in the app's lifespan (``running``).
Its DNS-rebinding guard checks Host and Origin against Settings.mcp_allowed_hosts and
mcp_allowed_origins: a browser page on another origin, or a name rebound to this address,
gets the SDK's refusal (421 for the Host, 403 for the Origin).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from registry.config import Settings

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
    hosts = settings.mcp_allowed_hosts or listen_hosts(LOOPBACK[0])
    if hosts == ["*"]:  # a proxy in front checks them
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = settings.mcp_allowed_origins or [
        f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)


class Endpoint:
    """The ASGI app at ``/mcp``: the server's current session manager."""

    def __init__(self, server: MCPServer, settings: Settings) -> None:
        self.server = server
        self.security = transport_security(settings)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager, for the app's lifespan. A manager runs only once, so each
        lifespan makes a new one (``streamable_http_app`` does; its Starlette app is unused:
        the route is the FastAPI app's own, so /mcp stays out of /openapi.json)."""
        self.server.streamable_http_app(streamable_http_path=PATH,
                                        transport_security=self.security)
        async with self.server.session_manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.server.session_manager.handle_request(scope, receive, send)


class McpRoute(Route):
    """``/mcp`` for every method (the SDK answers each). It leaves itself in the scope, as
    FastAPI's routes do, so metrics and the access log name it."""

    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__(PATH, endpoint)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        return match, (child | {"route": self} if match is not Match.NONE else child)
