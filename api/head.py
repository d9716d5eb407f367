"""``HEAD`` on every ``GET`` route (RFC 9110 9.3.2): the same status and headers, Content-Length
and ETag included, without the body. FastAPI routes answer only the methods they declare, so
HEAD would be a 405; this turns it into a GET and drops the body on the way out. Routes with
no GET still answer 405, with their ``Allow``.
"""

from __future__ import annotations

from typing import Any


class HeadAsGet:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        scope["method"] = "GET"  # in place: the outer middleware reads the matched route back

        async def without_body(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                # The server reads the method back from this scope to know it must not wait
                # for Content-Length bytes of body: as GET it would reset the connection.
                scope["method"] = "HEAD"
            elif message["type"] == "http.response.body":
                if message.get("more_body"):
                    return  # the rest is coming; one empty final message is enough
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app(scope, receive, without_body)
