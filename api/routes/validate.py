"""POST /validate: what agents will see of a manifest (the body) or of a URL (``{"url": ...}``).

The body form (a manifest, or an HTML page whose Schema.org items are read) is placed on its
site as `actiondex ingest` and `actiondex validate FILE` place a file (registry.placement) and
read in this process by registry.validate, nothing fetched. The URL form
runs `actiondex validate URL --json` in a child process: Scrapy's reactor cannot run inside
the server's event loop (nor restart), and the child goes through the crawler's own address
guard, so the API never reaches a private address (no --allow-private is ever passed). Both
answer 200 with the report, which says itself whether the document is ok.

A URL validation holds one of MAX_FETCHES slots, at most PER_CLIENT of them per client
address (an IPv6 client: per /64), for at most ``ACTIONDEX_VALIDATE_TIMEOUT`` seconds in all
(the child is killed then, however slowly the site was still dripping bytes): a client
pointing validations at a slow site cannot keep everyone else's out.
"""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
import sys
import threading
from collections import Counter
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import AfterValidator
from starlette.concurrency import run_in_threadpool

from api.bodies import bounded_body, strict_json
from api.csrf import json_media
from api.errors import ACCEPTED, error_response, error_responses
from api.schemas import DocumentReport, SiteReport, validate_body
from registry.formats import MAX_BYTES
from registry.model.urls import MAX_URL
from registry.placement import origin_of, place
from registry.validate import ValidationReport, validate_placed

MAX_FETCHES = 4  # child processes at once; more requests are told to come back later
PER_CLIENT = 2  # of them for one client address
# Always an explicit http(s) URL for the child: a bare word could name a file on the server.
# Case spelled out, not re.IGNORECASE: the pattern is also published in the OpenAPI schema.
_URL = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]+(?:[/?#][^\s]*)?")
_DOMAIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?")
# An origin registry.placement takes (an http(s) URL, or a bare host meaning https, whose host
# is dot-separated labels of letters, digits, '-' and '_', with a port up to 65535), in a form
# a schema can state.
# A port 1-65535 without leading zeros (0 is no port a site is served on: intake_url refuses it).
_PORT = r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
ORIGIN = (
    r"^(?:[Hh][Tt][Tt][Pp][Ss]?://)?[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*\.?"
    rf"(?::{_PORT})?(?:[/?#][!-~]*)?$"
)

URL_FORM = rf"^\s*(?:{_URL.pattern}|{_DOMAIN.pattern})\s*$"  # the {"url"} the schema states

router = APIRouter(tags=["validate"])


def fetch_flags() -> list[str]:
    """Extra `actiondex validate` flags for the URL form: none in production. Tests override
    this dependency with ``--resolve`` entries to reach a loopback site, exactly that one."""
    return []


def _origin(value: str | None) -> str | None:
    if value is not None and not re.fullmatch(ORIGIN, value):
        raise ValueError(ACCEPTED["origin"])
    return value


@router.post(
    "/validate",
    response_model=DocumentReport | SiteReport,
    responses=error_responses(
        403,
        413,
        415,
        422,
        429,
        500,
        502,
        503,
        504,
        text={
            403: "The crawler's address guard refuses the `url` (`refused`, with the reason: a "
            "non-public address, a non-web port, a port outside 1-65535, control characters), "
            "or the request came from a page on another origin (`cross-origin`)",
            422: "A query parameter or the body breaks this schema (`invalid-parameter`): a "
            "`url` that is no http(s) URL or domain, a body sent as JSON that is not JSON",
            429: "Too many requests from this client (`rate-limited`), or this client already "
            f"has {PER_CLIENT} URL validations running (`busy`); see Retry-After",
        },
    ),
    openapi_extra=validate_body(URL_FORM, MAX_URL, MAX_BYTES),
)
async def validate(
    request: Request,
    flags: Annotated[list[str], Depends(fetch_flags)],
    origin: Annotated[
        str | None,
        Query(
            description="The site the posted manifest will be published on: a host (meaning "
            "https) or a URL, e.g. shop.example or http://shop.example:8080 [default: the "
            "manifest's own site/url field]",
            max_length=MAX_URL,
            json_schema_extra={"pattern": ORIGIN},
        ),
        AfterValidator(_origin),
    ] = None,
) -> JSONResponse:
    """Validate a posted manifest (any format actiondex reads), or fetch ``{"url": ...}``."""
    body = await bounded_body(request, MAX_BYTES)
    if body is None:
        return error_response(413, "too-large", f"the body is larger than {MAX_BYTES} bytes")
    syntax = _not_json(request, body)
    if syntax:
        return error_response(422, "invalid-parameter", syntax, "body")
    url = _url_form(body)
    if url is None:
        try:
            report = await run_in_threadpool(body_report, body, origin)
        except ValueError as exc:
            return error_response(422, "invalid-parameter", str(exc), "origin")
        return JSONResponse(report.public())
    target = fetch_target(url)
    if target is None and isinstance(url, str) and re.fullmatch(URL_FORM, url):
        # It fits the schema; the site it names is one the crawl cannot read (port 0, an
        # encoded or malformed host): refused, as the address guard refuses (403).
        return error_response(403, "refused", _unreadable(url), "url")
    if target is None:
        return error_response(422, "invalid-parameter", "must be an http(s) URL or a domain", "url")
    return await run_in_threadpool(fetch_report, request, target, flags)


def fetch_target(url: Any) -> str | None:
    """An http(s) URL to hand the child; a bare domain means its https homepage."""
    if not isinstance(url, str) or len(url) > MAX_URL:
        return None
    url = url.strip()
    target = f"https://{url}/" if _DOMAIN.fullmatch(url) else url
    if not _URL.fullmatch(target):
        return None
    try:  # the site the child's crawl will read: a host it cannot take is refused here
        origin_of(target)
    except ValueError:
        return None
    return target


def _unreadable(url: str) -> str:
    """Why the crawl cannot read the site ``url`` (one that fits URL_FORM) names."""
    url = url.strip()
    try:
        origin_of(f"https://{url}/" if _DOMAIN.fullmatch(url) else url)
    except ValueError as exc:
        return f"refused {url[:200]!r}: {exc}"
    return f"refused {url[:200]!r}"


def body_report(body: bytes, origin: str | None) -> ValidationReport:
    """The posted document's report; ValueError when ``origin`` is not a site."""
    return validate_placed(place(body, origin=origin))


def _not_json(request: Request, body: bytes) -> str | None:
    """Why a body sent as JSON is not JSON, or None. A document that may not parse goes as
    application/octet-stream (or with no Content-Type), and its report names the problem."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not body.strip() or not json_media(media):
        return None
    try:
        strict_json(body)
    except (ValueError, RecursionError) as exc:
        return (
            f"the body is not JSON ({str(exc)[:200]}); to have a document that may not parse "
            "reported, send it as application/octet-stream"
        )
    return None


def _url_form(body: bytes) -> Any:
    """The ``url`` of a ``{"url": ...}`` body; None for anything else (a manifest)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # nested past Python's stack: no {"url"} form
        return None
    return data["url"] if isinstance(data, dict) and set(data) == {"url"} else None


def _child_error(stdout: str) -> str:
    """The message of the child's ``--json`` error object: ``{"error": {"message"}}``."""
    try:
        return str(json.loads(stdout)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return "invalid URL"


class Slots:
    """The URL validations running: at most ``total``, ``per_client`` of them per client."""

    def __init__(self, total: int = MAX_FETCHES, per_client: int = PER_CLIENT) -> None:
        self.total, self.per_client = total, per_client
        self.running: Counter[str] = Counter()
        self.lock = threading.Lock()

    def take(self, client: str) -> str | None:
        """None with a slot taken for ``client``, else why not: "client" or "all"."""
        with self.lock:
            if self.running[client] >= self.per_client:
                return "client"
            if self.running.total() >= self.total:
                return "all"
            self.running[client] += 1
            return None

    def give(self, client: str) -> None:
        with self.lock:
            self.running[client] -= 1
            if self.running[client] <= 0:
                del self.running[client]


def client_key(request: Request) -> str:
    """Whose validation it is: the client address (api.proxies decided which), an IPv6 one
    as its /64, the block one subscriber is given."""
    host = (request.client.host if request.client else None) or "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def fetch_report(request: Request, url: str, flags: list[str]) -> JSONResponse:
    """The URL form's answer as POST /validate sends it (the web validator shows it too)."""
    slots: Slots = request.app.state.validations
    timeout: float = request.app.state.settings.validate_timeout
    client = client_key(request)
    busy = slots.take(client)
    if busy == "client":
        return error_response(
            429,
            "busy",
            f"{slots.per_client} validations of yours are running; retry when one has finished",
            headers={"Retry-After": str(max(1, round(timeout / 2)))},
        )
    if busy:
        return error_response(
            503,
            "busy",
            "too many validations running; retry shortly",
            headers={"Retry-After": "10"},
        )
    try:
        # "--" ends the options: whatever the URL says, it is only ever the target.
        command = [sys.executable, "-m", "actiondex", "validate", "--json", *flags, "--", url]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return error_response(504, "timeout", f"{url} took longer than {timeout:g} s", "url")
    finally:
        slots.give(client)
    if done.returncode == 2:  # the command's "bad input" exit: a refused or malformed URL
        # 403, as POST /submissions: the url fits the schema; the address guard refuses it.
        return error_response(403, "refused", _child_error(done.stdout), "url")
    try:
        return JSONResponse(json.loads(done.stdout))
    except ValueError:
        return error_response(502, "fetch-failed", f"could not validate {url}", "url")
