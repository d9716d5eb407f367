"""``/``: the search page. A GET form, so it works with JavaScript off and a search is a link.

The form's values become a registry.search.FindQuery, as GET /find's do, so the bounds and
the messages are the same: a query FindQuery refuses is shown on the page with status 422.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import urlencode

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError

from api import threaded
from api.deps import IndexDep, SearchThreadsDep
from api.web.render import page
from registry.db.engine import DB_AWAY
from registry.model.schemas import EFFECTS
from registry.search import MAX_OFFSET, FindQuery, find, first_problem
from registry.search.contract import MAX_QUERY_CHARS
from registry.store.lookup import stats

PAGE = 10  # results on one page, unless the link asks for another ``limit``
FIELDS = ("q", "effect", "site", "offset", "limit")  # what the page reads; the rest is ignored
LABELS = {
    "q": "What do you want to do?",
    "effect": "Effect",
    "site": "Site",
    "offset": "Page",
    "limit": "Results on a page",
}  # a refused field, as the page names it

# Requests the home page offers as links: what people ask agents to do
EXAMPLES = ("buy printer paper", "book a table for two tonight", "track my parcel")

router = APIRouter(include_in_schema=False)


async def _held(request: Request) -> dict[str, Any] | None:
    """The store's counts (GET /stats), or None when the database does not answer."""
    try:
        return dict(await threaded.read(request.app.state.engine, stats))
    except DB_AWAY:
        return None


def _asked(request: Request) -> dict[str, list[str]]:
    """The form's values, blank ones dropped (an empty site box means no site filter)."""
    asked: dict[str, list[str]] = {}
    for name, value in request.query_params.multi_items():
        if name in FIELDS and (value.strip() or name == "q"):
            asked.setdefault(name, []).append(value)
    return asked


@router.get("/", response_class=HTMLResponse)
async def search_page(
    request: Request, index: IndexDep, search_threads: SearchThreadsDep
) -> HTMLResponse:
    asked = _asked(request)
    form = {
        "q": (asked.get("q") or [""])[0],
        "effect": asked.get("effect", []),
        "site": (asked.get("site") or [""])[0],
    }
    context = {
        "title": "Search actions",
        "active": "search",
        "form": form,
        "all_effects": EFFECTS,
        "held": None,
        "examples": [],
        "problems": [],
        "invalid": set(),
        "found": None,
        "next_page": None,
        "previous_page": None,
        "offset": 0,
        "as_json": None,
        "max_chars": MAX_QUERY_CHARS,
    }
    if "q" not in asked:  # the home page: what the registry holds, and how to ask it
        context["held"] = await _held(request)
        context["examples"] = [(q, "/?" + urlencode({"q": q})) for q in EXAMPLES]
        return page(request, "search.html", **context)
    values = {
        "q": form["q"],
        "effect": form["effect"],
        "limit": (asked.get("limit") or [str(PAGE)])[0],
        "site": asked.get("site", []),
        "offset": (asked.get("offset") or ["0"])[0],
    }
    try:
        query = FindQuery.model_validate(values)
    except ValidationError as exc:  # every problem, each naming (and marking) its field
        context["problems"] = _problems(exc)
        context["invalid"] = {p["name"] for p in context["problems"]}
        return page(request, "search.html", 422, **context)
    found = await anyio.to_thread.run_sync(
        functools.partial(find, index, query), limiter=search_threads
    )
    context.update(
        found=found,
        offset=query.offset,
        title=f"{query.q} - search actions",
        as_json=_link(query, query.offset, "/find"),
    )
    following = query.offset + query.limit
    # A page may hold fewer than `limit` while more follow (a flow folds its steps, a site's
    # extras move down): whether there is a next page is asked, not guessed from the count.
    if following <= MAX_OFFSET and found.results:
        probe = query.model_copy(update={"offset": following, "limit": 1})
        more = await anyio.to_thread.run_sync(
            functools.partial(find, index, probe), limiter=search_threads
        )
        context["next_page"] = _link(query, following) if more.results else None
    if query.offset:
        context["previous_page"] = _link(query, max(0, query.offset - query.limit))
    return page(request, "search.html", **context)


def _problems(exc: ValidationError) -> list[dict[str, str]]:
    """``{name, label, message}`` of each refused field, once each, in the form's order."""
    seen: dict[str, dict[str, str]] = {}
    for error in exc.errors():
        name, message = first_problem([error])
        seen.setdefault(name, {"name": name, "label": LABELS.get(name, name), "message": message})
    order = {name: i for i, name in enumerate(FIELDS)}
    return sorted(seen.values(), key=lambda p: order.get(p["name"], len(order)))


def _link(query: FindQuery, offset: int, path: str = "/") -> str:
    """The same search at another offset (on /find: as JSON, for agents)."""
    pairs = [
        ("q", query.q),
        *(("effect", e) for e in query.effect),
        *(("site", s) for s in query.site),
    ]
    if path != "/" or query.limit != PAGE:
        pairs.append(("limit", str(query.limit)))
    return f"{path}?" + urlencode([*pairs, ("offset", str(offset))] if offset else pairs)
