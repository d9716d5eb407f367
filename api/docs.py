"""/docs (Swagger UI) and /redoc from files this server serves, so they work offline.

FastAPI's own pages load their scripts from a CDN. The files come from the fastapi-offline
package (Swagger UI 5, which reads OpenAPI 3.1; swagger-ui-bundle ships 4.x, which does not);
only its static folder is used.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"


def install_docs(app: FastAPI) -> None:
    """Serve the assets under ASSETS and the two pages; the app is made with docs_url=None and
    redoc_url=None."""
    app.mount(ASSETS, StaticFiles(packages=[("fastapi_offline", "static")]), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - API",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            # Swagger UI would send the schema to validator.swagger.io for its badge.
            swagger_ui_parameters={"validatorUrl": None})

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - API",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS}/favicon.png", with_google_fonts=False)
