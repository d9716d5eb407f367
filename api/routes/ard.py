"""ARD v0.91 Registry API under /ard (registry.ard does the work), and the ARD catalog that
describes this registry at the well-known ARD paths.

Errors here are ARD's ``{"errorCode", "message"}`` (api.errors). Retrieve is cacheable: an
ETag over the body, a short public lifetime, 304 on If-None-Match; a 404 is not cached.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from api.deps import IndexDep, SessionDep
from api.errors import ard_error, error_responses
from api.etag import etag_of, matches
from registry.ard import listing, match, service
from registry.ard.bodies import (
    IDENTIFIER_PATTERN,
    LIST_PAGE_SIZE,
    MAX_PAGE_SIZE,
    TOKEN_PATTERN,
    ArdError,
    Entry,
    ExploreRequest,
    ExploreResponse,
    ListResponse,
    SearchRequest,
    SearchResponse,
)
from registry.ard.explore import explore as explore_facets
from registry.formats import ard as ard_format
from registry.model import ard_terms as terms

CACHE = "public, max-age=300"
STATUS: dict[int | str, str] = {
    400: "Malformed request (`INVALID_ARGUMENT`)",
    404: "No such entry (`NOT_FOUND`)",
    # Declared so FastAPI documents no 422 of its own: a bad body or parameter is a 400.
    "4XX": "Any other client error, in the same shape",
    429: "Too many requests (`RATE_LIMIT_EXCEEDED`)",
    500: "Something went wrong on our side (`INTERNAL_ERROR`)",
}
router = APIRouter(prefix="/ard", tags=["ARD registry"])
well_known = APIRouter(tags=["ARD registry"])


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {s: {"model": ArdError, "description": STATUS[s]} for s in (*statuses, 429, "4XX", 500)}


def _base(request: Request) -> str:
    return str(request.base_url)


def _registry(request: Request) -> str:
    """Where this registry's ARD API is: the base URL of /ard."""
    return _base(request) + router.prefix.lstrip("/")


def _answer(call: Any, *args: Any) -> Any:
    """``call(*args)``, with the registry's refusals as ARD errors."""
    try:
        return JSONResponse(call(*args))
    except (service.Invalid, match.FilterError) as exc:
        return ard_error(400, str(exc))


@router.post("/search", response_model=SearchResponse, responses=_errors(400))
def search(body: SearchRequest, index: IndexDep, session: SessionDep, request: Request) -> Any:
    """Entries ranked by relevance to `query.text` as `GET /find` ranks them, filtered by
    `query.filter`: every action we index (type `application/vnd.actiondex.action+json`),
    every flow (`application/vnd.actiondex.flow+json`, with its steps) and every entry of a
    site's ARD catalog as its publisher wrote it. `score` (0-100) follows the rank; it says
    nothing of trust."""
    query = body.query

    def run() -> dict[str, Any]:
        found = match.clauses(query.filter, query.context)
        page = service.search_entries(
            index,
            session,
            query.text,
            found,
            body.pageSize,
            body.pageToken,
            _base(request),
            _registry(request),
        )
        return page | ({"referrals": []} if body.federation == "referrals" else {})

    return _answer(run)


@router.post("/explore", response_model=ExploreResponse, responses=_errors(400))
def explore(body: ExploreRequest, index: IndexDep, session: SessionDep, request: Request) -> Any:
    """Facet counts (`type`, `publisher`, `effect`, `format` or any term path) over the
    entries matching the query: Search's matched set when there is `text`, else the whole
    registry (up to 200,000 entries)."""
    return _answer(explore_facets, index, session, body, _base(request))


@router.get("/agents", response_model=ListResponse, responses=_errors(400))
def list_agents(
    session: SessionDep,
    request: Request,
    filter: Annotated[
        str | None,
        Query(
            max_length=1000,
            pattern=listing.FILTER_PATTERN,
            description=(
                "`field = 'a,b' AND field = 'c'`: `type`, `publisherId`, `displayName` (contains, "
                "any case), `createdAfter`/`updatedAfter` (`> 'ISO 8601'`), our terms (`effect`, "
                "`method`, `format`, `site`, `auth`) or any term path"
            ),
        ),
    ] = None,
    orderBy: Annotated[
        str | None,
        Query(
            max_length=200,
            pattern=listing.ORDER_PATTERN,
            description=(
                "`identifier`, `displayName`, `createdAt` or `updatedAt`, each with ASC or DESC; "
                "comma-separated. Default: the order entries were stored in"
            ),
        ),
    ] = None,
    pageSize: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = LIST_PAGE_SIZE,
    pageToken: Annotated[str | None, Query(pattern=TOKEN_PATTERN)] = None,
) -> Any:
    """Every entry, deterministically ordered (no relevance)."""
    return _answer(
        listing.list_entries, session, filter, orderBy, pageSize, pageToken, _base(request)
    )


@router.get(
    "/agents/{identifier:path}",
    response_model=Entry,
    responses={304: {"description": "Not modified"}, **_errors(400, 404)},
)
def retrieve(
    identifier: Annotated[
        str,
        Path(
            pattern=IDENTIFIER_PATTERN,
            max_length=terms.MAX_IDENTIFIER,
            description="The complete identifier, percent-encoded as one path segment",
        ),
    ],
    session: SessionDep,
    request: Request,
) -> Any:
    """The complete entry with exactly this identifier (no score, no source)."""
    try:
        entry = service.retrieve(session, identifier, _base(request))
    except service.NotFound:
        return ard_error(
            404, f"no entry {identifier!r} in this registry", headers={"Cache-Control": "no-cache"}
        )
    response = JSONResponse(entry, headers={"Cache-Control": CACHE})
    etag = etag_of(response.body)
    if matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": CACHE})
    response.headers["ETag"] = etag
    return response


def catalog(request: Request) -> dict[str, Any]:
    """This registry as an ARD catalog: one `application/ai-registry+json` entry."""
    base = _base(request)
    host = request.url.hostname or ""
    host = host if re.fullmatch(r"[A-Za-z0-9.-]{1,253}", host) else "localhost"
    return {
        "specVersion": "1.0",
        "host": {"displayName": "actiondex", "identifier": base},
        "entries": [
            {
                "identifier": f"urn:air:{host.lower()}:registry:actiondex",
                "displayName": "actiondex: the actions websites offer agents",
                "type": terms.REGISTRY_TYPE,
                "url": _registry(request),
                "description": "An open, crawler-built registry of the actions websites offer "
                "AI agents, and of the ARD entries their catalogs list.",
                "capabilities": ["search", "retrieve", "explore", "list"],
                "representativeQueries": [
                    "which site lets me order printer paper",
                    "find an MCP server for weather forecasts",
                ],
            }
        ],
    }


for _path in ard_format.PATHS:
    well_known.add_api_route(
        _path,
        catalog,
        methods=["GET"],
        responses=error_responses(429, 500),
        summary="This registry as an ARD catalog",
    )
