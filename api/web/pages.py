"""The action, flow and site pages, and the prepare-call preview, over registry.store.lookup and
registry.calls.prepare (the same functions as GET /actions/{id}, GET /sites/{host} and POST
/actions/{id}/prepare). The preview is a POST form: what a person types stays out of URLs and
logs; nothing is sent to the site, the planned request is only shown.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from api import threaded
from api.web.forms import MAX_PREPARE_FORM, input_fields, read_form, to_input
from api.web.render import not_found, page
from registry.calls.prepare import PrepareError, prepare_call
from registry.db.engine import DB_AWAY, first_line
from registry.store.lookup import action_detail, flow_detail, site_detail

MAX_KEY = 300  # characters of an id or a host in a page's path; longer ones are unknown

router = APIRouter(include_in_schema=False)


class StoreAway(Exception):
    """The database does not answer: the page says so (503) instead of a traceback."""


async def _read(request: Request, lookup: Callable[[Session, str], Any], key: str) -> Any:
    """``lookup(session, key)`` in a read-only session, in a thread; None for a key too long."""
    if len(key) > MAX_KEY:
        return None

    try:
        return await threaded.read(request.app.state.engine, lookup, key)
    except DB_AWAY as exc:
        raise StoreAway(first_line(exc)) from exc


@router.get("/view/actions/{action_id}", response_class=HTMLResponse)
async def action_page(request: Request, action_id: str) -> HTMLResponse:
    action = await _read(request, action_detail, action_id)
    if action is None:
        return not_found(request, "This action")
    return _action_page(request, action, input_fields(action["input_schema"]))


@router.post("/view/actions/{action_id}/prepare", response_class=HTMLResponse)
async def prepare_preview(request: Request, action_id: str) -> HTMLResponse:
    action = await _read(request, action_detail, action_id)
    if action is None:
        return not_found(request, "This action")
    values = await read_form(request, MAX_PREPARE_FORM)
    if values is None:
        return _action_page(
            request,
            action,
            input_fields(action["input_schema"]),
            status=413,
            problems=[{"path": "$", "message": "the form is too large"}],
        )
    fields = input_fields(action["input_schema"], values)
    given = to_input(action["input_schema"], values)
    try:  # off the event loop: a check may take up to registry.calls.check_budget.TIME_BUDGET
        planned = await anyio.to_thread.run_sync(functools.partial(prepare_call, action, given))
    except PrepareError as exc:
        return _action_page(request, action, fields, status=422, problems=exc.problems)
    return _action_page(request, action, fields, planned=planned)


def _action_page(
    request: Request, action: dict[str, Any], fields: list[Any], status: int = 200, **preview: Any
) -> HTMLResponse:
    context = {"planned": None, "problems": None} | preview
    return page(
        request,
        "action.html",
        status,
        title=action["title"],
        action=action,
        form_fields=fields,
        **context,
    )


@router.get("/view/flows/{flow_id}", response_class=HTMLResponse)
async def flow_page(request: Request, flow_id: str) -> HTMLResponse:
    flow = await _read(request, flow_detail, flow_id)
    if flow is None:
        return not_found(request, "This flow")
    return page(request, "flow.html", title=flow["title"], flow=flow)


@router.get("/view/sites/{host}", response_class=HTMLResponse)
async def site_page(request: Request, host: str) -> HTMLResponse:
    site = await _read(request, site_detail, host)
    if site is None:
        return not_found(request, "This site")
    return page(request, "site.html", title=site["name"] or site["host"], site=site)
