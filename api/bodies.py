"""Request bodies read within a bound: a client that sends more is answered 413 without the
server holding the rest (Starlette would read a body of any size into memory)."""

from __future__ import annotations

from fastapi import Request


async def bounded_body(request: Request, limit: int) -> bytes | None:
    """The body, or None past ``limit`` bytes (read no further than that)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
