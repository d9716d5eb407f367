"""POST /submissions (ask for a crawl of a site) and GET /submissions/{id} (how it went).

The URL passes the crawler's address guard before anything is stored: the composition root
(actiondex serve) hands create_app that check, as ``target_check``; the API never imports
the crawler. New submissions are limited per client address (stored as a keyed hash) and per
registrable domain, counted in the database (registry.submissions.limits), so the limits hold
across replicas. Left out of CORS (api.cors): a page elsewhere cannot submit through its
visitors' browsers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from api.bodies import bounded_body
from api.deps import EngineDep, SessionDep
from api.errors import STORE_TEXT, error_response, error_responses
from api.submission_resources import (
    MAX_URL,
    SubmissionOut,
    SubmissionRequest,
    SubmissionTaken,
    submission_out,
    taken_out,
)
from registry.config import Settings
from registry.db.engine import transaction
from registry.store.rows import utcnow
from registry.submissions.limits import Limited, Limits, client_hash
from registry.submissions.queue import get_submission, submit

TargetCheck = Callable[[str], str]  # submitted text -> the target URL; ValueError: refused
MAX_BODY = 32 * 1024  # a 2048-character url, every character \u-escaped, fits
Token = Annotated[
    str,
    Path(
        min_length=16,
        max_length=32,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="The id POST /submissions gave",
    ),
]
POST_TEXT = {
    403: "The crawler's address guard refuses the URL (`refused`, with the reason: malformed, "
    "not http(s), control characters such as CR or LF (raw or percent-encoded), a port "
    "outside 1-65535, a non-public address, a non-web port), or the request came from a page "
    "on another origin (`cross-origin`)",
    422: f'The body is no {{"url": "..."}} of 1 to {MAX_URL} characters (`invalid-parameter`)',
    429: "Too many submissions from this client or for this registrable domain "
    "(`rate-limited`), or the queue is full (`queue-full`); see Retry-After",
    503: "The store cannot be reached (`store-unavailable`), or this server cannot check "
    "addresses (`submissions-off`); see Retry-After",
}
OK = {
    200: {
        "model": SubmissionTaken,
        "description": "The host already had a queued or "
        "crawling submission: only its host and status (its id and URL are its "
        "submitter's; duplicates collapse)",
    },
    202: {
        "model": SubmissionOut,
        "description": "Queued: a new submission; follow `link` (also the Location header)",
    },
}

router = APIRouter(tags=["submissions"])


@router.post(
    "/submissions",
    status_code=202,
    response_model=SubmissionOut,
    operation_id="submit_site",
    responses={**OK, **error_responses(403, 413, 415, 422, 429, 500, 503, text=POST_TEXT)},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SubmissionRequest.model_json_schema()}},
        }
    },
)
async def create_submission(request: Request, engine: EngineDep) -> JSONResponse:
    """Ask for a crawl of a site (a site owner, or an agent that saw a manifest). Answers
    202 with a new submission (follow its ``link``), or 200 with only the host and status
    of the host's open one."""
    body = await bounded_body(request, MAX_BODY)
    if body is None:
        return error_response(413, "too-large", f"the body is larger than {MAX_BODY} bytes")
    url = _url(body)
    if url is None:
        return error_response(
            422,
            "invalid-parameter",
            'the body must be {"url": "<a domain or an http(s) URL>"}',
            "url",
        )
    check: TargetCheck | None = request.app.state.target_check
    if check is None:
        return error_response(
            503,
            "submissions-off",
            "this server was started without the crawler's address guard",
            headers={"Retry-After": "3600"},
        )
    try:
        target = check(url)
    except ValueError as exc:
        # 403, not 422: any string is a url the schema takes; the guard's policy refuses it.
        return error_response(403, "refused", str(exc), "url")
    settings: Settings = request.app.state.settings
    address = (request.client.host if request.client else None) or "unknown"
    client = client_hash(address, settings.submit_client_key)
    try:
        row, created = await run_in_threadpool(
            _submit, engine, target, client, Limits.from_settings(settings)
        )
    except Limited as exc:
        return error_response(
            429, exc.code, str(exc), headers={"Retry-After": str(exc.retry_after)}
        )
    if not created:
        return JSONResponse(row)
    return JSONResponse(row, status_code=202, headers={"Location": row["link"]})


@router.get(
    "/submissions/{id}",
    response_model=SubmissionOut,
    operation_id="get_submission",
    responses=error_responses(404, 422, 429, 500, 503, text=STORE_TEXT),
)
def read_submission(id: Token, session: SessionDep) -> Any:
    """A submission: queued, crawling, done (with the actions found, each linked to
    /actions/{id}) or failed (with the reason)."""
    row = get_submission(session, id)
    if row is None:
        return error_response(404, "not-found", f"no submission {id!r}", "id")
    return JSONResponse(submission_out(row))


def _submit(
    engine: Engine, target: str, client: str, limits: Limits
) -> tuple[dict[str, Any], bool]:
    with transaction(engine) as session:
        row, created = submit(session, target, utcnow(), client=client, limits=limits)
        return (submission_out(row) if created else taken_out(row)), created


def _url(body: bytes) -> str | None:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or set(data) != {"url"} or not isinstance(data["url"], str):
        return None
    return data["url"] if 0 < len(data["url"]) <= MAX_URL else None
