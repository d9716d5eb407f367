"""/docs (Swagger UI) and /redoc from files this server serves, so they work offline.

FastAPI's own pages load their scripts from a CDN. The files come from the fastapi-offline
package (Swagger UI 5, which reads OpenAPI 3.1; swagger-ui-bundle ships 4.x, which does not);
only its static folder is used.

Both pages send a Content-Security-Policy: scripts, styles, images and fetches from this
server only (Swagger UI's one inline script allowed by its hash; both viewers set inline
styles, Redoc runs its search in a worker from a blob), never framed (also X-Frame-Options).
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"
CSP = (
    "default-src 'none'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; "
    "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_INLINE = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def secured(page: HTMLResponse) -> HTMLResponse:
    """``page`` with its CSP (each inline script allowed by its hash) and no framing."""
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
        for script in _INLINE.findall(bytes(page.body).decode())
    )
    page.headers.update(
        {
            "Content-Security-Policy": CSP.format(scripts=hashes),
            "X-Frame-Options": "DENY",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
        }
    )
    return page


def install_docs(app: FastAPI) -> None:
    """Serve the assets under ASSETS and the two pages; the app is made with docs_url=None and
    redoc_url=None."""
    app.mount(ASSETS, StaticFiles(packages=[("fastapi_offline", "static")]), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return secured(
            get_swagger_ui_html(
                openapi_url=f"{root}{app.openapi_url}",
                title=f"{app.title} - API",
                swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
                swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
                # Swagger UI would send the schema to validator.swagger.io for its badge.
                swagger_ui_parameters={"validatorUrl": None},
            )
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return secured(
            get_redoc_html(
                openapi_url=f"{root}{app.openapi_url}",
                title=f"{app.title} - API",
                redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
                redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
                with_google_fonts=False,
            )
        )
