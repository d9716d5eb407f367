"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from api.errors import install_error_handlers
from api.ratelimit import RateLimit
from api.routes import find, health, validate
from registry.config import Settings, get_settings
from registry.index import ActionIndex


def create_app(settings: Settings | None = None, index: ActionIndex | None = None) -> FastAPI:
    """Build the app; without ``index``, the lifespan opens the one under settings.index_path."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if app.state.index is None:
            app.state.index = ActionIndex.open(settings.index_path)
        yield

    app = FastAPI(title="actiondex", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.index = index
    install_error_handlers(app)
    app.add_middleware(RateLimit, rate=settings.rate_limit, burst=settings.rate_burst)
    app.include_router(find.router)
    app.include_router(health.router)
    app.include_router(validate.router)
    return app
