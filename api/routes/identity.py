"""Who the crawler is: its key directory (Web Bot Auth) and the page its User-Agent names.

``GET /.well-known/http-message-signatures-directory`` is the JWKS a site fetches to verify a
signed crawler request (the ``Signature-Agent`` of each is this registry's ACTIONDEX_PUBLIC_URL);
the answer itself is signed as the directory draft asks, over ``"@authority";req`` with tag
``http-message-signatures-directory``. ``GET /about/crawler`` says what the crawler does and how
to opt out. Both read the key the crawler signs with, making it on first use (registry.identity).
"""

from __future__ import annotations

import datetime
import html
import json

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from http_message_signatures import HTTPMessageSigner, algorithms

from api.errors import error_response, error_responses
from registry.config import Settings
from registry.identity import (
    DIRECTORY_MEDIA_TYPE,
    DIRECTORY_PATH,
    SigningKey,
    SigningKeyError,
    load_or_create,
)

router = APIRouter(tags=["crawler"])
DIRECTORY_TAG = "http-message-signatures-directory"
DIRECTORY_LIFETIME = datetime.timedelta(hours=1)


def _key(request: Request) -> SigningKey:
    key: SigningKey | None = getattr(request.app.state, "signing_key", None)
    if key is None:
        key = load_or_create(request.app.state.settings)
        request.app.state.signing_key = key
    return key


class _Sent:
    """The answer as the signer sees it: a response bound to the request it answers."""

    def __init__(self, request: Request, headers: dict[str, str]) -> None:
        self.status_code = 200
        self.headers = headers
        self.request = _Asked(request)


class _Asked:
    def __init__(self, request: Request) -> None:
        self.method = request.method
        self.url = str(request.url)
        self.headers = dict(request.headers)


JWKS_SCHEMA = {
    "type": "object",
    "required": ["keys"],
    "properties": {
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["kty", "crv", "x", "kid"],
                "properties": {
                    "kty": {"const": "OKP"},
                    "crv": {"const": "Ed25519"},
                    "x": {"type": "string", "description": "the public key, base64url"},
                    "kid": {"type": "string", "description": "its RFC 7638 JWK thumbprint"},
                    "alg": {"const": "EdDSA"},
                    "use": {"const": "sig"},
                },
            },
        }
    },
}


@router.get(
    DIRECTORY_PATH,
    response_class=Response,
    responses={
        200: {
            "description": "The crawler's public signing keys (a JWKS), the answer signed "
            "(Signature-Input, Signature; tag http-message-signatures-directory)",
            "content": {DIRECTORY_MEDIA_TYPE: {"schema": JWKS_SCHEMA}},
        },
        **error_responses(
            500, 503, text={503: "The signing key could not be read or made (`no-signing-key`)"}
        ),
    },
)
def key_directory(request: Request) -> Response:
    """The HTTP Message Signatures directory: the Ed25519 key every crawler request is signed
    with (OKP JWK; ``kid`` is its RFC 7638 thumbprint, the signatures' ``keyid``)."""
    try:
        key = _key(request)
    except (OSError, SigningKeyError) as exc:
        return error_response(503, "no-signing-key", str(exc).splitlines()[0])
    headers = {"Content-Type": DIRECTORY_MEDIA_TYPE, "Cache-Control": "max-age=3600"}
    sent = _Sent(request, headers)
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    HTTPMessageSigner(signature_algorithm=algorithms.ED25519, key_resolver=key).sign(
        sent,
        key_id=key.thumbprint,
        created=now,
        expires=now + DIRECTORY_LIFETIME,
        label="binding0",
        tag=DIRECTORY_TAG,
        covered_component_ids=('"@authority";req',),
    )
    return Response(json.dumps(key.directory()), headers=sent.headers)


ABOUT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The actiondex crawler</title></head>
<body><main>
<h1>The actiondex crawler</h1>
<p>This crawler reads the documents a site publishes for AI agents (agent manifests,
OpenAPI descriptions, JSON-LD actions, robots.txt, sitemaps) and lists the actions they describe in
an open registry. It asks for little: one request at a time per host, at least one second apart,
slower when robots.txt says <code>Crawl-delay</code>, conditional requests on recrawls.
It also checks whether the agent endpoints a site lists answer, with their protocol's read-only
handshake only (an MCP server's <code>initialize</code> and tool list, an A2A agent's card),
never calling a tool; these checks obey robots.txt and are signed like every request.</p>
<p>It sends <code>User-Agent: {agent}</code>. Every request is signed (HTTP Message Signatures,
RFC 9421, as Web Bot Auth describes): the key is listed at
<a href="{directory}">{directory}</a>.</p>
<h2>Opting out</h2>
<p>The crawler obeys robots.txt under the user-agent token <code>{token}</code>:</p>
<pre>User-agent: {token}
Disallow: /</pre>
<p>A site that disallows a document it listed before has it withdrawn at the next crawl.</p>
</main></body></html>
"""


@router.get("/about/crawler", response_class=HTMLResponse, include_in_schema=False)
def about_crawler(request: Request) -> HTMLResponse:
    settings: Settings = request.app.state.settings
    token = settings.user_agent.split("/")[0]
    directory = (settings.public_url or str(request.base_url).rstrip("/")) + DIRECTORY_PATH
    page = ABOUT.format(
        agent=html.escape(settings.user_agent),
        token=html.escape(token),
        directory=html.escape(directory, quote=True),
    )
    return HTMLResponse(page)
