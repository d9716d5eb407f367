"""GET /sites (the list, and the change feed mirrors follow), GET /sites/{host},
GET /sites/{host}/manifest (the site as one agent-actions/0.1 manifest),
GET /sites/{host}/history (each change of its action set) and GET /stats."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import AfterValidator

from api.deps import SessionDep
from api.errors import STORE_TEXT, error_response, error_responses
from api.etag import ETAG_HEADER, NOT_MODIFIED, json_resource
from api.resources import ExportManifest, SiteDetail, SiteHistoryPage, SitePage, Stats
from registry.model.bounds import MAX_PAGE, SiteName
from registry.store.history import site_history
from registry.store.keyset import CURSOR_PATTERN, BadCursor
from registry.store.lookup import site_detail, site_manifest, stats
from registry.store.site_list import SITE_CURSOR_PATTERN, cursor_after, list_sites

router = APIRouter(tags=["sites"])
# An RFC 3339 date-time, its zone required: a time without one names no moment.
RFC3339 = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
READ_ERRORS = error_responses(404, 422, 429, 500, 503, text=STORE_TEXT)
OK = {**NOT_MODIFIED, 200: {"headers": ETAG_HEADER}}


def _links(**links: tuple[str, str, str]) -> dict[str, dict[str, Any]]:
    """OpenAPI links: name -> (operationId, its parameter, where in this body its value is)."""
    return {
        name: {"operationId": op, "parameters": {param: f"$response.body#{pointer}"}}
        for name, (op, param, pointer) in links.items()
    }


SITE_LINKS = _links(
    site=("get_site", "host", "/items/0/host"),
    manifest=("get_site_manifest", "host", "/items/0/host"),
)
DETAIL_LINKS = _links(
    action=("get_action", "id", "/actions/0/id"),
    flow=("get_flow", "id", "/flows/0/id"),
    prepare=("prepare_call", "id", "/actions/0/id"),
)
HostPath = Annotated[
    SiteName,
    Path(
        description=(
            "The site's host as you would type it: any case, IDN in Unicode or A-labels "
            "(bücher.example, xn--bcher-kva.example), or its URL (https://shop.example/, "
            "slashes as they are or %2F-encoded)"
        )
    ),
]


def _site_resource(request: Request, host: str, found: Any) -> Response:
    """``found`` as the answer (with its ETag), or the 404 of a site the registry lacks."""
    if found is None:
        return error_response(404, "not-found", f"no site {host!r} in the registry", "host")
    return json_resource(request, found)


def _moment(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        # fromisoformat takes at most microseconds: nanoseconds are cut, not refused.
        head, dot, tail = value.partition(".")
        if dot:
            digits = len(tail) - len(tail.lstrip("0123456789"))
            value = f"{head}.{tail[: min(digits, 6)]}{tail[digits:]}"
        return datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        raise ValueError("not a date and time, e.g. 2026-12-01T12:00:00Z") from None


@router.get(
    "/sites",
    response_model=SitePage,
    operation_id="list_sites",
    responses={
        **error_responses(422, 429, 500, 503, text=STORE_TEXT),
        **NOT_MODIFIED,
        200: {"headers": ETAG_HEADER, "links": SITE_LINKS},
    },
)
def get_sites(
    session: SessionDep,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Sites per page")] = 100,
    cursor: Annotated[
        str | None,
        Query(
            pattern=SITE_CURSOR_PATTERN,
            description="`next_cursor` (the next page) or `resume_cursor` (later: only what "
            "changed since) of an earlier answer: `<microseconds since 1970>~<host>`, a place "
            "in the list's order (any token of that shape is one)",
        ),
    ] = None,
    format: Annotated[
        str | None,
        Query(
            pattern=r"^[a-z0-9-]{1,64}$",
            description="Only sites with a document in this format, e.g. agent-actions",
        ),
    ] = None,
    has_actions: Annotated[
        bool | None, Query(description="Only sites with (true) or without (false) actions")
    ] = None,
    updated_since: Annotated[
        str | None,
        Query(
            pattern=RFC3339,
            json_schema_extra={"format": "date-time"},
            description="Only sites whose action set changed at or after this time (RFC 3339, "
            "e.g. 2026-12-01T12:00:00Z)",
        ),
        AfterValidator(_moment),
    ] = None,
) -> Response:
    """Sites, oldest change first: follow ``next_cursor`` to the end, keep ``resume_cursor``
    and ask again later to get each site that changed since, once per change, with its new
    ``version``."""
    try:
        items, next_cursor = list_sites(
            session,
            limit=limit,
            cursor=cursor,
            format=format,
            has_actions=has_actions,
            updated_since=updated_since,
        )  # type: ignore[arg-type]
    except BadCursor as exc:
        return error_response(422, "invalid-parameter", str(exc), "cursor")
    return json_resource(
        request,
        {"items": items, "next_cursor": next_cursor, "resume_cursor": cursor_after(items, cursor)},
    )


@router.get(
    "/sites/{host:path}/manifest",
    response_model=ExportManifest,
    operation_id="get_site_manifest",
    responses={**READ_ERRORS, **OK},
)
def get_site_manifest(host: HostPath, session: SessionDep, request: Request) -> Response:
    """Every action and flow of the site, whatever formats it publishes, as ONE
    agent-actions/0.1 manifest (the format `POST /validate` reads, and accepts with no
    error); 404 once an operator removed the site."""
    found = site_manifest(session, host)
    return _site_resource(request, host, found)


@router.get(
    "/sites/{host:path}/history",
    response_model=SiteHistoryPage,
    operation_id="get_site_history",
    responses={**READ_ERRORS, **OK},
)
def get_site_history(
    host: HostPath,
    session: SessionDep,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Entries per page")] = 50,
    cursor: Annotated[
        str | None,
        Query(
            pattern=CURSOR_PATTERN,
            description="`next_cursor` of an earlier answer: the entries older than its page",
        ),
    ] = None,
) -> Response:
    """Each change of the site's action set, newest first: the version it produced, the
    actions (and flows, as flow:NAME) added, removed and changed, and why (a crawl, an
    ingest, a tombstone, robots.txt, an operator's removal). A removed site keeps its
    history."""
    try:
        found = site_history(session, host, limit=limit, cursor=cursor)
    except BadCursor as exc:
        return error_response(422, "invalid-parameter", str(exc), "cursor")
    return _site_resource(request, host, found)


# Declared after /manifest and /history: the host may be a URL, slashes and all, so this
# route takes the rest of the path.
@router.get(
    "/sites/{host:path}",
    response_model=SiteDetail,
    operation_id="get_site",
    responses={**READ_ERRORS, **NOT_MODIFIED, 200: {"headers": ETAG_HEADER, "links": DETAIL_LINKS}},
)
def get_site(host: HostPath, session: SessionDep, request: Request) -> Response:
    """One site: its actions and flows (in brief: GET /actions/{id} has the rest), the
    documents they were read from with their diagnostics, and the last crawl that named it."""
    found = site_detail(session, host)
    return _site_resource(request, host, found)


@router.get(
    "/stats",
    response_model=Stats,
    operation_id="get_stats",
    responses={**error_responses(429, 500, 503, text=STORE_TEXT), **OK},
)
def get_stats(session: SessionDep, request: Request) -> Response:
    """What the registry holds: sites, actions, flows, documents by format, actions by
    effect, and the last crawl run."""
    return json_resource(request, stats(session))
