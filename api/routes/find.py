"""GET /find: which site offers which action for a plain-language query."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import AfterValidator

from api.deps import IndexDep
from registry.schemas import Effect, FindResponse
from registry.search import find

MAX_QUERY_CHARS = 256
MAX_QUERY_TERMS = 16
HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::[0-9]{1,5})?")

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


def _clean_site(site: str | None) -> str | None:
    if site is None:
        return None
    site = site.strip().lower()
    if not HOST.fullmatch(site):
        raise ValueError("must be a host name such as shop.example (with :port if not default)")
    return site


@router.get("/find", response_model=FindResponse)
def find_actions(
    index: IndexDep,
    q: Annotated[str, Query(description="What the agent wants to do"),
                 AfterValidator(_clean_query)],
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    effect: Annotated[list[Effect] | None, Query(description="Repeatable; OR'ed")] = None,
    site: Annotated[str | None, Query(max_length=260, description="Exact host"),
                    AfterValidator(_clean_site)] = None,
) -> JSONResponse:
    """Find actions and flows by BM25 over names, titles, types and descriptions."""
    response = find(index, q, limit=limit, effects=effect, site=site)
    return JSONResponse(response.public())
