"""The FastAPI application factory."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from sqlalchemy import Engine
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from api.bodies import BodyLimit
from api.cors import ReadCors
from api.csrf import SameOrigin
from api.docs import install_docs
from api.errors import install_error_handlers
from api.head import HeadAsGet
from api.mcp import http as mcp_http
from api.metrics import StoreCollector, new_registry
from api.observe import Observe, RequestMetrics
from api.ratelimit import RateLimit
from api.routes import actions, ard, find, health, identity, runs, sites, submissions, validate
from api.web import install_web
from api.web.validator import MAX_FORM
from registry.config import Settings, get_settings
from registry.db.engine import make_engine, reading
from registry.db.tables import CrawlRun
from registry.formats import MAX_BYTES
from registry.index import ActionIndex, vectors
from registry.store.crawl_state import latest_finished_run

# Searches running at once, in threads (tantivy releases the GIL while it searches): one per
# core, and one more. Between two searches a thread waits for the event loop (to hand its
# page back and be given the next request) while the loop runs other requests' Python; the
# extra thread searches meanwhile. At 1M actions on 2 cores, concurrency 16: 3 threads kept
# 1.63-1.67 cores busy against 1.49-1.54 with 2, and served 6-29% more requests a second in
# each of six paired rounds (README, "Speed and scale"). Many more only contend for the GIL and
# the caches: at 10k actions, 40 threads (Starlette's default pool) spent 2.2-2.6 ms of CPU a
# request at concurrency 16, 2 threads 1.4 ms.
SEARCH_THREADS = 1 + (
    len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
)

DESCRIPTION = (
    "An open registry of the actions websites offer AI agents. `GET /find` answers which "
    "site offers which action for a plain-language request, how to call it and what it will "
    "do; `GET /actions/{id}`, `/flows/{id}`, `/sites` (a change feed), `/sites/{host}` (and "
    "its `/manifest`), `/stats` and `/runs` (crawl runs) read the registry, with ETags; "
    "`POST /actions/{id}/prepare` plans a call without making it; `POST /validate` shows a "
    "site owner what agents will see; `POST /submissions` asks for a crawl of a site. Every "
    "error is "
    '`{"error": {"code", "message", "field"}}` with a 4xx or 5xx status.'
)


def create_app(
    settings: Settings | None = None,
    index: ActionIndex | None = None,
    engine: Engine | None = None,
    target_check: submissions.TargetCheck | None = None,
) -> FastAPI:
    """Build the app; without ``index``, the lifespan opens the one under settings.index_path,
    and without ``engine`` it makes one from settings (and disposes of it at the end).
    ``target_check``: the crawler's address guard for POST /submissions (the API does not
    import the crawler); without it submissions answer 503 ``submissions-off``."""
    settings = settings or get_settings()
    mcp = mcp_http.Endpoint(lambda: app.state, settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if app.state.index is None:
            app.state.index = ActionIndex.open(
                settings.index_path, settings.meaning_first_stage, settings.meaning_sites
            )
        own_engine = app.state.engine is None
        if own_engine:
            app.state.engine = make_engine(settings)  # connects on first use, not now
        app.state.search_threads = anyio.CapacityLimiter(SEARCH_THREADS)
        # The embedding table (~20 MB, 0.2 s) loads now, not on the first sentence asked.
        await anyio.to_thread.run_sync(vectors.load)
        try:
            async with mcp.running():
                yield
        finally:
            if own_engine:
                app.state.engine.dispose()
                app.state.engine = None

    app = FastAPI(
        title="actiondex",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.index = index
    app.state.engine = engine
    app.state.target_check = target_check
    app.state.validations = validate.Slots()
    install_error_handlers(app)
    install_docs(app)
    install_observers(app, settings)
    app.include_router(find.router)
    app.include_router(actions.router)
    app.include_router(sites.router)
    app.include_router(runs.router)
    app.include_router(health.router)
    app.include_router(validate.router)
    app.include_router(submissions.router)
    app.include_router(ard.router)
    app.include_router(ard.well_known)
    app.include_router(identity.router)
    install_web(app)
    # Not an APIRoute: the SDK answers every method on it, and /openapi.json leaves it out.
    app.router.routes.append(mcp_http.McpRoute(mcp))
    return app


def install_observers(app: FastAPI, settings: Settings) -> None:
    """Middleware, outermost last: the client address from a trusted proxy's headers (only
    with ACTIONDEX_TRUSTED_PROXIES); Observe sees every answer (429s included) and times it;
    HEAD runs as GET; CORS for the read routes; the rate limit; no cross-site POST to the
    routes that work on someone's behalf; every body within its bound."""
    app.add_middleware(BodyLimit, ceiling=MAX_BYTES, larger={"/validator": MAX_FORM})
    app.add_middleware(SameOrigin)
    app.add_middleware(RateLimit, rate=settings.rate_limit, burst=settings.rate_burst)
    app.add_middleware(ReadCors, origins=settings.cors_origins)
    app.add_middleware(HeadAsGet)
    registry = app.state.metrics_registry = new_registry()

    def latest_run() -> CrawlRun | None:
        with reading(app.state.engine) as session:
            return latest_finished_run(session)

    registry.register(StoreCollector(lambda: app.state.index, latest_run))
    app.add_middleware(Observe, metrics=RequestMetrics(registry), access_log=settings.access_log)
    if settings.trusted_proxies:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
