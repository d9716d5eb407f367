"""Structured JSON errors everywhere: ``{"error": {"code", "message", "field"}}``.

Validation -> 422 ``invalid-parameter`` naming the parameter; unknown route -> 404
``not-found``; wrong method -> 405 ``method-not-allowed``; the store unreachable -> 503
``store-unavailable``; anything unexpected -> 500 ``internal-error`` with no traceback in the
body (the server still logs it). An answer about several problems at once (POST
/actions/{id}/prepare) lists each in ``problems``, ``field`` naming the first.

Under /ard the ARD spec's shape applies instead (Appendix B): ``{"errorCode", "message"}``,
with a validation error as 400 ``INVALID_ARGUMENT``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from registry.db.engine import DB_AWAY

HTTP_CODES = {400: "bad-request", 404: "not-found", 405: "method-not-allowed", 413: "too-large"}
ARD_PREFIX = "/ard"
ARD_CODES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    429: "RATE_LIMIT_EXCEEDED",
    500: "INTERNAL_ERROR",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
}
# What each status means on our routes, for the OpenAPI document.
STATUS_TEXT = {
    403: "A browser page on another site sent it (`cross-origin`, naming the Origin)",
    404: "No such resource (`not-found`)",
    413: "The body is too large (`too-large`)",
    415: "The body is not of a media type this route takes (`unsupported-media-type`)",
    422: "A parameter or the body is invalid (`invalid-parameter`, naming the `field`)",
    429: "Too many requests from this client (`rate-limited`; see Retry-After)",
    500: "Something went wrong on our side (`internal-error`)",
    502: "The fetched site gave nothing to report (`fetch-failed`)",
    503: "Too many validations running (`busy`; see Retry-After)",
    504: "The site took too long (`timeout`)",
}
# What 503 means on the routes that read the store (on POST /validate it means `busy`).
STORE_TEXT = {503: "The store cannot be reached (`store-unavailable`; see Retry-After)"}


class Problem(BaseModel):
    path: str = Field(description="JSON path of the value at fault, e.g. $.quantity")
    message: str


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. invalid-parameter")
    message: str = Field(description="What went wrong, for people")
    field: str | None = Field(description="The parameter at fault, when there is one")
    problems: list[Problem] | None = Field(
        None, description="Every problem, when there are several at once (prepare)"
    )


class ErrorBody(BaseModel):
    """Every 4xx and 5xx answer."""

    error: ErrorDetail


def error_responses(
    *statuses: int, text: Mapping[int, str] | None = None
) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that can answer ``statuses``: each with ErrorBody, described
    by ``text`` or STATUS_TEXT. A 422 declared here also keeps FastAPI from documenting its own
    ``{"detail": ...}`` shape."""
    text = {**STATUS_TEXT, **(text or {})}
    return {status: {"model": ErrorBody, "description": text[status]} for status in statuses}


def error_response(
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: Mapping[str, str] | None = None,
    problems: list[dict[str, str]] | None = None,
) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message, "field": field}
    if problems is not None:
        error["problems"] = problems
    return JSONResponse({"error": error}, status_code=status, headers=headers)


def ard_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """An error under /ard: ``{"errorCode", "message"}``."""
    code = ARD_CODES.get(status, "INVALID_ARGUMENT" if status < 500 else "INTERNAL_ERROR")
    return JSONResponse(
        {"errorCode": code, "message": message}, status_code=status, headers=headers
    )


def under_ard(path: str) -> bool:
    return path == ARD_PREFIX or path.startswith(ARD_PREFIX + "/")


def _under_ard(request: Request) -> bool:
    return under_ard(request.url.path)


# What a parameter with a pattern takes, said with an example: the pattern itself (hundreds
# of characters for orderBy or filter) is for /openapi.json, not for an error message.
ACCEPTED = {
    "orderBy": "use displayName, identifier, updatedAt or createdAt, each with ASC or DESC, "
    "separated by commas, e.g. updatedAt DESC",
    "filter": "write field = 'value' AND field = 'a,b', e.g. "
    "type = 'application/mcp-server-card+json' AND updatedAfter > '2026-01-01'",
    "updated_since": "must be a date and time with its zone, e.g. 2026-12-01T12:00:00Z",
    "cursor": "must be the next_cursor of an earlier answer: a whole number such as 1234",
    "origin": "must be a host or an http(s) URL (a port from 1 to 65535), such as shop.example",
}
# GET /sites pages by a place in its change order, not by a row id.
SITE_CURSOR = (
    "must be the next_cursor or resume_cursor of an earlier answer, such as "
    "1796126400000000~shop.example"
)


def _said(first: dict[str, Any], field: str | None, path: str) -> str:
    """A readable message for one validation error: what a long-patterned parameter takes."""
    if first.get("type") == "string_pattern_mismatch" and field in ACCEPTED:
        return SITE_CURSOR if (path, field) == ("/sites", "cursor") else ACCEPTED[field]
    return str(first.get("msg", "invalid parameter")).removeprefix("Value error, ")


async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    first = errors[0] if errors else {}
    loc = [str(part) for part in first.get("loc", ())]
    # loc is ("query", "limit") or ("query", "effect", 0): the parameter name is the second part.
    field = loc[1] if len(loc) > 1 else (loc[0] if loc else None)
    message = _said(first, field, request.url.path)
    if _under_ard(request):
        where = ".".join(str(part) for part in loc[1:]) or "request"
        return ard_error(400, f"{where}: {message}")
    return error_response(422, "invalid-parameter", message, field)


async def _http(request: Request, exc: HTTPException) -> JSONResponse:
    code = HTTP_CODES.get(exc.status_code, "http-error")
    message = exc.detail if isinstance(exc.detail, str) else code
    if _under_ard(request):
        return ard_error(exc.status_code, message, headers=exc.headers)
    return error_response(exc.status_code, code, message, headers=exc.headers)


async def _store_away(request: Request, __: Exception) -> JSONResponse:
    message = "the store cannot be reached; retry shortly"
    if _under_ard(request):
        return ard_error(503, message, headers={"Retry-After": "5"})
    return error_response(503, "store-unavailable", message, headers={"Retry-After": "5"})


async def _unexpected(request: Request, __: Exception) -> JSONResponse:
    # Starlette re-raises after sending this, so the traceback reaches the server log only.
    if _under_ard(request):
        return ard_error(500, "internal server error")
    return error_response(500, "internal-error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _http)  # type: ignore[arg-type]
    for away in DB_AWAY:
        app.add_exception_handler(away, _store_away)
    app.add_exception_handler(Exception, _unexpected)
