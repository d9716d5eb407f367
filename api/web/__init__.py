"""The web page for people: server-rendered HTML over the same search, validator and lookups
as the JSON API. Jinja2 templates (autoescaped: every text a site wrote is hostile), one local
stylesheet, no JavaScript, a strict Content-Security-Policy. The pages live where the JSON API
does not: ``/``, ``/view/actions/{id}``, ``/view/sites/{host}``, ``/validator``; they are left
out of /openapi.json.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from api.web import pages, search, validator

STATIC = "/static/web"


def install_web(app: FastAPI) -> None:
    app.mount(STATIC, StaticFiles(directory=Path(__file__).with_name("static")), name="web")
    app.include_router(search.router)
    app.include_router(validator.router)
    app.include_router(pages.router)
