"""The web page for people: server-rendered HTML over the same search, validator and lookups
as the JSON API. Jinja2 templates (autoescaped: every text a site wrote is hostile), one local
stylesheet, no JavaScript, a strict Content-Security-Policy. The pages live where the JSON API
does not: ``/``, ``/view/actions/{id}``, ``/view/sites/{host}``, ``/validator``; they are left
out of /openapi.json.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from api.web import pages, search, validator
from api.web.render import page

STATIC = "/static/web"


def install_web(app: FastAPI) -> None:
    app.add_exception_handler(pages.StoreAway, _store_away)
    app.mount(STATIC, StaticFiles(directory=Path(__file__).with_name("static")), name="web")
    app.include_router(search.router)
    app.include_router(validator.router)
    app.include_router(pages.router)


async def _store_away(request: Request, exc: Exception) -> HTMLResponse:
    return page(
        request,
        "error.html",
        503,
        title="The registry is not answering",
        message="Its database does not answer just now; try again in a minute.",
    )
