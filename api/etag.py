"""JSON resources with an ``ETag`` (a strong hash of the body) and ``304 Not Modified`` when a
client's ``If-None-Match`` names it (RFC 9110 13.1.2: weak comparison, ``*`` matches any)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import Request, Response

NOT_MODIFIED = {304: {"description": "Not modified: `If-None-Match` names the current ETag"}}
ETAG_HEADER = {
    "ETag": {
        "description": "A strong hash of the body; send it back in "
        "If-None-Match to get 304 while it is unchanged",
        "schema": {"type": "string"},
    }
}
_DUMP = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def etag_of(body: bytes) -> str:
    return f'"{hashlib.sha256(body).hexdigest()[:32]}"'


def matches(if_none_match: str | None, tag: str) -> bool:
    if not if_none_match:
        return False
    candidates = [part.strip() for part in if_none_match.split(",")]
    return "*" in candidates or tag in (c.removeprefix("W/") for c in candidates)


def json_resource(request: Request, data: Any) -> Response:
    """``data`` as a JSON response with its ETag, or an empty 304 if the client has it."""
    body = _DUMP(data).encode()
    tag = etag_of(body)
    if matches(request.headers.get("if-none-match"), tag):
        return Response(status_code=304, headers={"ETag": tag})
    return Response(body, media_type="application/json", headers={"ETag": tag})
