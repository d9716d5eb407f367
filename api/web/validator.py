"""``/validator``: a site owner pastes a manifest or a URL and sees every diagnostic with its
hint. The work is POST /validate's own (api.routes.validate): a pasted manifest is placed
and read in this process, a URL is fetched by `actiondex validate` in a child process. The
form posts ``application/x-www-form-urlencoded``, read here with a bound on its size.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from api.routes.validate import MAX_URL, body_report, fetch_flags, fetch_report, fetch_target
from api.web.forms import read_form
from api.web.render import page
from registry.formats import MAX_BYTES

# Percent-encoding makes a byte up to three characters long.
MAX_FORM = 3 * (MAX_BYTES + 2 * MAX_URL) + 1024

router = APIRouter(include_in_schema=False)


@router.get("/validator", response_class=HTMLResponse)
async def validator_page(request: Request) -> HTMLResponse:
    return _page(request, {"manifest": "", "url": "", "origin": ""})


@router.post("/validator", response_class=HTMLResponse)
async def validate_form(
    request: Request, flags: Annotated[list[str], Depends(fetch_flags)]
) -> HTMLResponse:
    form = await _form(request)
    if form is None:
        return _page(
            request,
            {"manifest": "", "url": "", "origin": ""},
            413,
            problem=f"The form is larger than {MAX_BYTES} bytes of manifest allow.",
        )
    if form["url"].strip():
        target = fetch_target(form["url"])
        if target is None:
            return _page(
                request,
                form,
                422,
                problem="The URL must be an http(s) URL or a domain such as shop.example.",
            )
        answer = await run_in_threadpool(fetch_report, request, target, flags)
        body = json.loads(bytes(answer.body))
        if answer.status_code != 200:
            return _page(request, form, answer.status_code, problem=body["error"]["message"])
        return _page(request, form, reports=_documents(body))
    if not form["manifest"].strip():
        return _page(request, form, 422, problem="Paste a manifest or give a URL.")
    try:
        report = await run_in_threadpool(
            body_report, form["manifest"].encode(), form["origin"].strip() or None
        )
    except ValueError as exc:
        return _page(request, form, 422, problem=f"The site it is published on: {exc}.")
    return _page(request, form, reports=[report.public(with_url=True)])


def _page(
    request: Request,
    form: dict[str, str],
    status: int = 200,
    problem: str | None = None,
    reports: list[dict[str, Any]] | None = None,
) -> HTMLResponse:
    return page(
        request,
        "validator.html",
        status,
        title="Validate a manifest",
        active="validator",
        form=form,
        problem=problem,
        reports=reports,
        max_bytes=MAX_BYTES,
        max_url=MAX_URL,
    )


async def _form(request: Request) -> dict[str, str] | None:
    """The form's three fields ("" when absent), or None past MAX_FORM bytes."""
    fields = await read_form(request, MAX_FORM)
    if fields is None:
        return None
    form = {name: (fields.get(name) or [""])[0] for name in ("manifest", "url", "origin")}
    if len(form["manifest"].encode()) > MAX_BYTES:
        return None
    return form


def _documents(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A fetched report's documents: a site report has several, a document report is one."""
    return list(body["documents"]) if "documents" in body else [body]
