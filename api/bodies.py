"""Request bodies read within a bound: a client that sends more is answered 413 without the
server holding the rest (Starlette would read a body of any size into memory).

Two layers. ``BodyLimit`` wraps the whole app: no request, on any route (POST /ard/search,
/ard/explore and /mcp read their bodies through FastAPI and the MCP SDK, which know no
bound), may send more than its ceiling, whether it says its length or sends chunks; past it
the reading stops and the answer is 413 ``too-large`` in the error shape of the path.
``bounded_body`` is a route's own, tighter bound (a submission is at most 32 KiB).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import Request
from starlette.exceptions import HTTPException

from api.errors import ard_error, error_response, under_ard


async def bounded_body(request: Request, limit: int) -> bytes | None:
    """The body, or None past ``limit`` bytes (read no further than that)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")  # Python's json reads NaN and Infinity


def strict_json(body: bytes) -> Any:
    """The JSON value of ``body``; ValueError (or RecursionError) when it is not JSON."""
    return json.loads(body, parse_constant=_not_json)


class TooLarge(HTTPException):
    """Raised by the wrapped ``receive`` once a body passes its ceiling."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the body is larger than {limit} bytes")


class BodyLimit:
    """At most ``ceiling`` bytes of body per request (``larger``: path -> a higher one for
    the routes that need it, e.g. the validator's percent-encoded form). A declared length
    past it is refused unread; a chunked body is cut where it passes it, and whatever the
    app was answering is replaced by the 413 (the connection is then closed, so the rest of
    the body is never read)."""

    def __init__(self, app: Any, ceiling: int, larger: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.ceiling = ceiling
        self.larger = dict(larger or {})

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.ceiling)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(scope, receive, send, limit)
            return
        size, over, started = 0, False, False

        async def bounded_receive() -> dict[str, Any]:
            nonlocal size, over
            if over:
                return {"type": "http.disconnect"}
            message: dict[str, Any] = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > limit:
                    over = True
                    raise TooLarge(limit)
            return message

        async def guarded_send(message: dict[str, Any]) -> None:
            nonlocal started
            if over:  # the app's own answer to the cut body (a 400, a 500): not sent
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded_receive, guarded_send)
        except Exception:
            if not over:
                raise
        if over and not started:
            await _refuse(scope, receive, send, limit)


def _content_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(scope: dict[str, Any], receive: Any, send: Any, limit: int) -> None:
    message = f"the body is larger than {limit} bytes"
    headers = {"Connection": "close"}
    response = (
        ard_error(413, message, headers)
        if under_ard(scope["path"])
        else error_response(413, "too-large", message, headers=headers)
    )
    await response(scope, receive, send)
