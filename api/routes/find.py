"""GET /find: which site offers which action for a plain-language query."""

from __future__ import annotations

import functools
import re
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Query, Response
from pydantic import AfterValidator

from api.deps import IndexDep, SearchThreadsDep
from registry.schemas import Auth, Effect, FindResponse
from registry.search import MAX_OFFSET, PER_SITE, Filters, page_json, search

MAX_QUERY_CHARS = 512  # agents ask in sentences; ToolLens requests average 22 words
MAX_QUERY_TERMS = 48
HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::[0-9]{1,5})?")
TOKEN = re.compile(r"[A-Za-z0-9:/._#-]{1,100}")

router = APIRouter(tags=["find"])


def _clean_query(q: str) -> str:
    q = q.strip()
    if not q:
        raise ValueError("must not be empty")
    if len(q) > MAX_QUERY_CHARS:
        raise ValueError(f"must be at most {MAX_QUERY_CHARS} characters")
    if len(q.split()) > MAX_QUERY_TERMS:
        raise ValueError(f"must have at most {MAX_QUERY_TERMS} terms")
    return q


def _clean_sites(sites: list[str] | None) -> list[str]:
    cleaned = [s.strip().lower() for s in sites or []]
    for site in cleaned:
        if not HOST.fullmatch(site):
            raise ValueError("must be a host or domain such as shop.example (with :port "
                             "if not default)")
    return cleaned


def _tokens(values: list[str] | None) -> list[str]:
    for value in values or []:
        if not TOKEN.fullmatch(value):
            raise ValueError("must be a short name such as SearchAction, openapi or POST")
    return values or []


Words = Annotated[list[str] | None, AfterValidator(_tokens)]


@router.get("/find", response_model=FindResponse)
async def find_actions(  # noqa: PLR0913 - one argument per documented query parameter
    index: IndexDep,
    search_threads: SearchThreadsDep,
    q: Annotated[str, Query(description="What the agent wants to do"),
                 AfterValidator(_clean_query)],
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    effect: Annotated[list[Effect] | None, Query(description="Repeatable; OR'ed")] = None,
    type: Annotated[Words, Query(description="Schema.org Action type, e.g. SearchAction")] = None,
    site: Annotated[list[str] | None, Query(description="Host or parent domain; repeatable"),
                    AfterValidator(_clean_sites)] = None,
    format: Annotated[Words, Query(description="Source format, e.g. agent-actions")] = None,
    method: Annotated[Words, Query(description="HTTP method")] = None,
    auth: Annotated[list[Auth] | None, Query()] = None,
    same_origin: Annotated[bool | None, Query(description="Omitted: same-origin only")] = None,
    explain: Annotated[bool, Query(description="Add each result's score breakdown")] = False,
    per_site: Annotated[int, Query(ge=1, le=50, description="Results per site per page")]
    = PER_SITE,
) -> Response:
    """Find actions and flows by BM25 over names, titles, types, parameters and descriptions.

    The search runs in a thread (at most one per core, its own limiter, so slow /validate
    fetches never hold it up): tantivy releases the GIL while it searches (two threads answer
    1.7x the queries of one on 2 cores), so one process serves concurrent requests on every
    core. Worker processes would each count the index pages they touch in their resident
    memory (one process per core: 568 MB RSS at 1M actions; one with threads: about 300 MB).
    """
    filters = Filters(effects=effect or (), types=type or (), sites=site or (),
                      formats=format or (), methods=method or (), auths=auth or (),
                      same_origin=same_origin)
    run = functools.partial(search, index, q, limit=limit, offset=offset, filters=filters,
                            explain=explain, per_site=per_site)
    page = await anyio.to_thread.run_sync(run, limiter=search_threads)
    return Response(page_json(page), media_type="application/json")
