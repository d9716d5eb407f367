"""CORS for the read routes: a web page on another origin may search and read the registry
(and reach /mcp), with no credentials. Routes that make the server work on someone's behalf
(POST /validate fetches a URL; submissions ask for a crawl) are left out, so a page elsewhere
cannot read their answers through its visitors' browsers."""

from __future__ import annotations

from typing import Any

from starlette.middleware.cors import CORSMiddleware

NOT_SHARED = ("/validate", "/submissions")
EXPOSED = ["ETag", "Retry-After", "Mcp-Session-Id", "Mcp-Protocol-Version"]
# Mcp-Method and Mcp-Name: what MCP 2026-07-28 clients send with each request.
ALLOWED_HEADERS = [
    "Content-Type",
    "If-None-Match",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Last-Event-ID",
    "Mcp-Method",
    "Mcp-Name",
]


class ReadCors:
    def __init__(self, app: Any, origins: list[str]) -> None:
        self.app = app
        # POST too: POST /ard/search, /ard/explore and /actions/{id}/prepare only read.
        self.cors = CORSMiddleware(
            app,
            allow_origins=origins,
            allow_methods=["GET", "HEAD", "POST", "DELETE"],
            allow_headers=ALLOWED_HEADERS,
            expose_headers=EXPOSED,
            allow_credentials=False,
            max_age=600,
        )

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(NOT_SHARED):
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)
