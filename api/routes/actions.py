"""GET /actions/{id}, GET /flows/{id} and POST /actions/{id}/prepare: one action or flow by
the id /find gave, and the exact request that would call an action (never sent)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from api import threaded
from api.bodies import bounded_body, strict_json
from api.deps import EngineDep, SessionDep
from api.errors import STORE_TEXT, error_response, error_responses
from api.etag import ETAG_HEADER, NOT_MODIFIED, json_resource
from api.resources import PrepareRequest
from api.routes.find import AsQuery
from registry.calls.input_check import MAX_INPUT_BYTES
from registry.calls.prepare import PrepareError, prepare_call
from registry.model.bounds import Id
from registry.model.public import ActionDetail, FlowDetail, PreparedCall
from registry.model.tool_shapes import ToolDefinition
from registry.model.tooldefs import definitions
from registry.store.lookup import action_detail, flow_detail

router = APIRouter(tags=["actions"])
MAX_BODY = MAX_INPUT_BYTES + 1024  # the input and its {"input": ...} wrapper
READ_ERRORS = error_responses(404, 422, 429, 500, 503, text=STORE_TEXT)
IdPath = Annotated[Id, Path(description="The id /find gave, e.g. 4b873d693a63d35e0a88ea6c")]


def _not_found(kind: str, ident: str) -> JSONResponse:
    return error_response(404, "not-found", f"no {kind} {ident!r}", "id")


@router.get(
    "/actions/{id}",
    response_model=ActionDetail | ToolDefinition,
    operation_id="get_action",
    responses={**READ_ERRORS, **NOT_MODIFIED, 200: {"headers": ETAG_HEADER}},
)
def get_action(id: IdPath, session: SessionDep, request: Request, as_: AsQuery = None) -> Response:
    """One action as /find returns it, plus the document it was read from (``document``),
    its site's name and whether calling it needs its person's approval. With
    ``as=openai|anthropic|mcp``: the action as one tool definition in that shape."""
    found = action_detail(session, id)
    if found is None:
        return _not_found("action", id)
    return json_resource(request, found if as_ is None else _tool(found, as_.value))


@router.get(
    "/flows/{id}",
    response_model=FlowDetail | ToolDefinition,
    operation_id="get_flow",
    responses={**READ_ERRORS, **NOT_MODIFIED, 200: {"headers": ETAG_HEADER}},
)
def get_flow(id: IdPath, session: SessionDep, request: Request, as_: AsQuery = None) -> Response:
    """One flow, each step with its bindings and its action resolved. With
    ``as=openai|anthropic|mcp``: the flow as one tool definition in that shape."""
    found = flow_detail(session, id)
    if found is None:
        return _not_found("flow", id)
    return json_resource(request, found if as_ is None else _tool(found, as_.value))


def _tool(item: dict[str, Any], shape: str) -> dict[str, Any]:
    tools, _ = definitions([item], shape)
    return tools[0]


@router.post(
    "/actions/{id}/prepare",
    response_model=PreparedCall,
    operation_id="prepare_call",
    responses=error_responses(
        404,
        409,
        413,
        422,
        429,
        500,
        503,
        text={
            **STORE_TEXT,
            409: (
                "The request is well formed, but this action cannot take it: the input breaks the "
                "action's own input schema (`invalid-input`: every problem in `problems`, `field` "
                "the first one's JSON path), the action cannot be called (`not-callable`: no "
                "endpoint, or an input schema that references outside itself or is too large), or "
                "checking the input would take too long (`too-complex`). Each action's input "
                "schema is data (GET /actions/{id}), not this document's"
            ),
            422: 'The body is no {"input": {...}} (`invalid-parameter`)',
        },
    ),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": PrepareRequest.model_json_schema() | {"maxProperties": 1}
                }
            },
        }
    },
)
async def prepare(id: IdPath, engine: EngineDep, request: Request) -> JSONResponse:
    """The exact HTTP request that would call the action with ``input``: method, URL (its
    template filled), headers and body, checked against the action's input schema (JSON
    Schema 2020-12). Nothing is sent: the caller sends it, with its own credentials, after
    asking its person when ``needs_approval`` says so."""
    body = await bounded_body(request, MAX_BODY)
    if body is None:
        return error_response(413, "too-large", f"the body is larger than {MAX_BODY} bytes")
    value = _input(body)
    if isinstance(value, JSONResponse):
        return value
    # The action is read and its session closed before the input is checked: the check holds
    # no database connection, and runs in a worker thread, off the event loop.
    action = await threaded.read(engine, action_detail, id)
    if action is None:
        return _not_found("action", id)
    return await run_in_threadpool(_prepare, action, value)


def _prepare(action: dict[str, Any], value: dict[str, Any]) -> JSONResponse:
    try:
        return JSONResponse(prepare_call(action, value))
    except PrepareError as exc:
        field = exc.problems[0]["path"] if exc.code == "invalid-input" else None
        message = "; ".join(f"{p['path']}: {p['message']}" for p in exc.problems)
        # 409, not 422: the body fits this API's schema; the action's own data refuses it.
        return error_response(409, exc.code, message[:4000], field, problems=exc.problems)


def _input(body: bytes) -> dict[str, Any] | JSONResponse:
    try:
        data = strict_json(body)
    except (ValueError, RecursionError):
        return error_response(422, "invalid-parameter", "the body is not JSON", "body")
    if not isinstance(data, dict) or set(data) - {"input"}:
        return error_response(422, "invalid-parameter", 'the body must be {"input": {...}}', "body")
    value = data.get("input", {})
    if not isinstance(value, dict):
        return error_response(422, "invalid-parameter", "input must be a JSON object", "input")
    return value
