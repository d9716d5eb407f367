"""No cross-site requests to the routes that make the server work on someone's behalf: POST
/submissions (asks for a crawl), POST /validate and the /validator form (fetch a URL).

A page elsewhere can make its visitors' browsers POST a form or ``text/plain`` to any
address, without asking (no CORS preflight), and spend their addresses' quotas; CORS
(api.cors) only keeps it from reading the answer. So, on those routes:

- a foreign ``Origin`` header (another site, or ``null``: a sandboxed frame, a page that sends
  no referrer) is 403 ``cross-origin``; no Origin (curl, agents, servers) or this server's own
  (the web validator's form) passes. Own means the Host the request was sent to, at the same
  port, whatever the scheme (a proxy in front may end TLS);
- the API routes take only the media types a browser cannot send without a preflight:
  ``application/json`` on /submissions, and on /validate a JSON, YAML, Markdown or HTML
  document (or no Content-Type, as some HTTP libraries send raw bytes); a form or
  ``text/plain`` is 415 ``unsupported-media-type``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from api.errors import error_response

JSON = ("application/json",)
DOCUMENTS = (
    "application/json",
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
    "text/x-yaml",
    "text/markdown",
    "text/html",
    "application/octet-stream",
    "",
)  # "": no Content-Type
# path -> the media types its POST takes (None: any, e.g. the web form)
GUARDED: dict[str, tuple[str, ...] | None] = {
    "/submissions": JSON,
    "/validate": DOCUMENTS,
    "/validator": None,
}
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}


class SameOrigin:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE or scope["path"] not in GUARDED:
            await self.app(scope, receive, send)
            return
        refusal = refuse(scope["path"], _headers(scope))
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await refusal(scope, receive, send)


def refuse(path: str, headers: dict[str, str]) -> Any:
    """The error answer for a request to ``path`` with ``headers``, or None when it passes."""
    origin = headers.get("origin")
    if origin is not None and not own_origin(origin, headers.get("host", "")):
        return error_response(
            403,
            "cross-origin",
            f"POST {path} is not taken from a page on "
            f"another site ({origin[:200]}); send it from this server's "
            "own page, or with no Origin header",
            "Origin",
        )
    accepted = GUARDED[path]
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    if (
        accepted is None
        or media in accepted
        or ("application/json" in accepted and _json_suffix(media))
    ):
        return None
    named = ", ".join(t for t in accepted if t) or "none"
    return error_response(
        415,
        "unsupported-media-type",
        f"POST {path} takes {named} bodies, not {media or 'a body without a Content-Type'}",
        "Content-Type",
    )


def own_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` (scheme://host[:port]) names the server the request reached at
    ``host`` (the Host header; without a port, the origin's default one)."""
    try:
        theirs, ours = urlsplit(origin), urlsplit(f"//{host}")
        their_port, our_port = theirs.port, ours.port
    except ValueError:
        return False
    if theirs.scheme not in DEFAULT_PORTS or not theirs.hostname:
        return False
    if theirs.hostname != ours.hostname:
        return False
    default = DEFAULT_PORTS[theirs.scheme]
    if our_port is None:
        return their_port in (None, default)
    return our_port == (their_port or default)


def json_media(media: str) -> bool:
    """application/json or a +json type (application/ld+json, ...)."""
    return media == "application/json" or _json_suffix(media)


def _json_suffix(media: str) -> bool:
    kind, _, sub = media.partition("/")
    return kind == "application" and sub.endswith("+json")


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    return {
        name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]
    }
