"""GET /find: which site offers which action for a plain-language query."""

from __future__ import annotations

import functools
import json
from enum import Enum
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Query, Response

from api.deps import IndexDep, SearchThreadsDep
from api.errors import error_responses
from registry.model.results import FindResponse
from registry.model.tool_shapes import AS_DESCRIPTION
from registry.model.tooldefs import SHAPES, definitions
from registry.search import FindQuery, Page, page_json, search

router = APIRouter(tags=["find"])
Shape = Enum("Shape", [(name, name) for name in SHAPES], type=str)  # type: ignore[misc]
AsQuery = Annotated[Shape | None, Query(alias="as", description=AS_DESCRIPTION)]


@router.get("/find", response_model=FindResponse, responses=error_responses(422, 429, 500))
async def find_actions(
    index: IndexDep,
    search_threads: SearchThreadsDep,
    query: Annotated[FindQuery, Query()],
    as_: AsQuery = None,
) -> Response:
    """Find actions and flows by BM25 over names, titles, types, parameters and descriptions.

    Each result says how to call it (method, endpoint, input schema), what it does (effect),
    what calling it needs (auth, scope) and costs (cost); a flow lists its steps. With
    `group=site`, `sites` holds one entry per site with its best actions. A request of more
    words than one search scores is searched by its rarest, and `shortened` says which.
    With `as=openai|anthropic|mcp`, `tools` holds the results as tool definitions in that
    shape, ready to load, and `ids` each tool's action or flow.
    """
    # The search runs in a thread (one per core and one more, its own limiter, so slow /validate
    # fetches never hold it up): tantivy releases the GIL while it searches (two threads
    # answer 1.7x the queries of one on 2 cores), so one process serves concurrent requests on
    # every core. Worker processes would each count the index pages they touch in their
    # resident memory (one process per core: 568 MB RSS at 1M actions; one with threads:
    # about 300 MB).
    run = functools.partial(search, index, query)
    page = await anyio.to_thread.run_sync(run, limiter=search_threads)
    body = page_json(page) if as_ is None else tools_json(page, as_.value)
    return Response(body, media_type="application/json")


def tools_json(page: Page, shape: str) -> bytes:
    """A page with its results as tool definitions (registry.model.tooldefs)."""
    tools, ids = definitions([json.loads(hit.payload) for hit in page.all_hits()], shape)
    answer: dict[str, object] = {"query": page.query, "results": [], "tools": tools, "ids": ids}
    if page.shortened:
        answer["shortened"] = page.shortened.json()
    answer["took_ms"] = page.took_ms
    return json.dumps(answer, ensure_ascii=False).encode()
