"""GET /runs (crawl runs, newest first) and GET /runs/{id}: what each crawl did and whether
it is still running, ended or was aborted."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from api.deps import SessionDep
from api.errors import STORE_TEXT, error_response, error_responses
from api.etag import ETAG_HEADER, NOT_MODIFIED, json_resource
from api.run_resources import Run, RunPage
from registry.model.bounds import MAX_PAGE, MAX_ROW_ID
from registry.model.statuses import RunStatus
from registry.store.keyset import CURSOR_PATTERN, BadCursor
from registry.store.runs import BadRunQuery, get_run, list_runs

router = APIRouter(tags=["runs"])
OK = {**NOT_MODIFIED, 200: {"headers": ETAG_HEADER}}
RUN_LINK = {
    "run": {"operationId": "get_run", "parameters": {"run_id": "$response.body#/items/0/id"}}
}


@router.get(
    "/runs",
    response_model=RunPage,
    operation_id="list_runs",
    responses={
        **error_responses(422, 429, 500, 503, text=STORE_TEXT),
        **NOT_MODIFIED,
        200: {"headers": ETAG_HEADER, "links": RUN_LINK},
    },
)
def get_runs(
    session: SessionDep,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Runs per page")] = 50,
    cursor: Annotated[
        str | None, Query(pattern=CURSOR_PATTERN, description="`next_cursor` of an earlier answer")
    ] = None,
    status: Annotated[RunStatus | None, Query(description="Only runs in this state")] = None,
) -> Response:
    """Crawl and ingest runs, newest first, with their figures; follow ``next_cursor``."""
    try:
        items, next_cursor = list_runs(session, limit=limit, cursor=cursor, status=status)
    except BadCursor as exc:
        return error_response(422, "invalid-parameter", str(exc), "cursor")
    except BadRunQuery as exc:
        return error_response(422, "invalid-parameter", str(exc), "status")
    return json_resource(request, {"items": items, "next_cursor": next_cursor})


@router.get(
    "/runs/{run_id}",
    response_model=Run,
    operation_id="get_run",
    responses={**error_responses(404, 422, 429, 500, 503, text=STORE_TEXT), **OK},
)
def get_one_run(
    run_id: Annotated[int, Path(ge=1, le=MAX_ROW_ID, description="The run's id")],
    session: SessionDep,
    request: Request,
) -> Response:
    """One run: its status, owner, heartbeat and figures."""
    found = get_run(session, run_id)
    if found is None:
        return error_response(404, "not-found", f"no crawl run {run_id}", "run_id")
    return json_resource(request, found)
