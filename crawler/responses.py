"""Turning Scrapy responses and failures into the registry's types (RawDocument, FetchFailure)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from OpenSSL import SSL
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadTimeoutError,
    IgnoreRequest,
)
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import ConnectionRefusedError as Refused
from twisted.internet.error import TCPTimedOutError
from twisted.python.failure import Failure

from crawler.middlewares import BlockedAddress
from registry.db.engine import first_line
from registry.formats.html import html_to_document, is_html
from registry.model.schemas import RawDocument


def header(response: Response, name: str) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


def response_is_html(response: Response) -> bool:
    return is_html(header(response, "Content-Type") or "", response.body)


def to_document(response: Response) -> RawDocument | None:
    """HTML pages become their JSON-LD items (or nothing); any other body is kept as served."""
    content_type = header(response, "Content-Type") or ""
    fields: dict[str, Any] = {
        "status": response.status,
        "etag": header(response, "ETag"),
        "last_modified": header(response, "Last-Modified"),
        "fetched_at": datetime.now(UTC),
    }
    if is_html(content_type, response.body):
        return html_to_document(response.url, response.body, **fields)
    return RawDocument(url=response.url, body=response.body, content_type=content_type, **fields)


def tls_error(exc: BaseException | None) -> SSL.Error | None:
    """The TLS error behind a failed download, if that is what it was."""
    found = behind(exc, SSL.Error)
    return found if isinstance(found, SSL.Error) else None


def behind(exc: BaseException | None, kind: type[BaseException]) -> BaseException | None:
    """The exception of ``kind`` behind a failed download, if any: Scrapy wraps Twisted's
    errors (a ResponseNeverReceived, whose ``reasons`` are Failures) in its own."""
    seen = 0
    while exc is not None and seen < 8:  # a short walk down the chain of causes
        if isinstance(exc, kind):
            return exc
        reasons = [getattr(r, "value", None) for r in getattr(exc, "reasons", None) or []]
        if found := next((r for r in reasons if isinstance(r, kind)), None):
            return found
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def classify(failure: Failure) -> tuple[int | None, str, str]:
    """(status, FetchFailure code, one-line message) for a failed request."""
    exc = failure.value
    message = first_line(exc)
    if isinstance(exc, HttpError):
        status = exc.response.status
        code = {404: "not-found", 410: "not-found", 429: "rate-limited"}.get(status, "http-error")
        return status, code, f"HTTP {status}"
    if isinstance(exc, BlockedAddress):
        return None, "blocked-address", message
    if (tls := tls_error(exc)) is not None:
        # A certificate that does not verify (self-signed, expired, another host's), or no
        # TLS at all: nothing from this host can be trusted to be the site's.
        detail = tls.args[0] if tls.args and isinstance(tls.args[0], list) else tls.args
        return None, "tls-invalid", f"TLS handshake failed: {str(detail)[:200]}"
    if isinstance(exc, CannotResolveHostError):  # names the resolver refused are BlockedAddress
        host = urlsplit(failure.request.url).hostname if hasattr(failure, "request") else None
        return None, "dns-error", f"could not resolve host {host or ''}: {message}".strip()
    if behind(exc, Refused) is not None:  # nothing listens there: the cause, not "network error"
        return None, "connection-refused", "connection refused: nothing listens on that port"
    if isinstance(exc, DownloadTimeoutError | TCPTimedOutError):
        return None, "timeout", message
    if isinstance(exc, DownloadCancelledError) or "MAXSIZE" in message:
        # Scrapy cancels a download past download_maxsize (and names the setting when a
        # decompressed body would exceed it).
        return None, "too-large", message
    if isinstance(exc, IgnoreRequest):
        # RedirectMiddleware gives up with a plain IgnoreRequest; its message is all we get.
        too_many = "redirections" in message
        return None, "too-many-redirects" if too_many else "http-error", message
    return None, "network-error", message
